// The pipeline's ledger port over @quill/canton's LedgerClient: the same contract types on both sides, and the
// transaction shape reconciliation reads with (the party's ACS delta).
import { type LedgerClient, LedgerError, type TransactionFormat } from '@quill/canton/ledger';
import type { LedgerPort } from './reconcile.ts';
import { currentTraceContext, inSpan, SpanKind } from './tracing.ts';

/** The party's view of a transaction, as reconciliation reads it. */
function transactionFormat(party: string): TransactionFormat {
  return {
    eventFormat: { filtersByParty: { [party]: { cumulative: [] } }, verbose: false },
    transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
  };
}

export function ledgerPort(client: LedgerClient): LedgerPort {
  // A package, once uploaded, stays: a name found once need not be looked up again.
  const knownPackageNames = new Set<string>();
  return {
    execute(body, opts) {
      // A client span whose context the participant receives as the `traceparent` header (and keeps as the
      // transaction's `traceContext`); with tracing off there is none and no header is sent.
      return inSpan(
        'ledger.execute',
        { 'quill.attempt.submission_id': body.submissionId },
        async (span) => {
          const trace = currentTraceContext();
          const res = await client.executeAndWaitForTransaction(body, {
            timeoutMs: opts.timeoutMs,
            ...(trace ? { traceparent: trace.traceparent } : {}),
            ...(trace?.tracestate ? { tracestate: trace.tracestate } : {}),
          });
          span.setAttribute('quill.update_id', res.transaction.updateId);
          return res.transaction;
        },
        SpanKind.CLIENT,
      );
    },
    ledgerEnd: () => client.ledgerEndOffset(),
    prepare: (body) => client.prepare(body),
    async transactionAt(offset, party) {
      try {
        const res = await client.transactionByOffset({ offset, transactionFormat: transactionFormat(party) });
        return res.transaction;
      } catch (err) {
        if (err instanceof LedgerError && (err.code === 'UPDATE_NOT_FOUND' || err.status === 404))
          return undefined;
        throw err;
      }
    },
    async *transactions(party, beginExclusive, endInclusive) {
      for await (const u of client.iterateUpdates({
        beginExclusive,
        endInclusive,
        pageSize: 200,
        updateFormat: { includeTransactions: transactionFormat(party) },
      })) {
        if ('Transaction' in u) yield u.Transaction.value;
      }
    },
    async unknownPackageNames(names) {
      const missing = new Set(names.filter((n) => !knownPackageNames.has(n)));
      if (missing.size === 0) return [];
      // The listing names a package only where it is uploaded on this participant: what the format check uses.
      const pages = client.vettedPackagesPages({
        packageMetadataFilter: { packageNamePrefixes: [...missing] },
      });
      for await (const page of pages) {
        for (const state of page.vettedPackages ?? []) {
          for (const p of state.packages) {
            if (p.packageName !== undefined && p.packageName !== null && missing.delete(p.packageName))
              knownPackageNames.add(p.packageName);
          }
        }
        if (missing.size === 0) break;
      }
      return [...missing];
    },
  };
}
