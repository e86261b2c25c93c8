// The pipeline's ledger port over src/ledger's LedgerClient.
import { readFile } from 'node:fs/promises';
import type { Config } from '../config.ts';
import { LedgerClient, LedgerError } from '../ledger/index.ts';
import type { LedgerPort, TransactionLike } from '../submissions/index.ts';

function transactionFormat(party: string) {
  return {
    eventFormat: { filtersByParty: { [party]: { cumulative: [] } }, verbose: false },
    transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' as const,
  };
}

export function ledgerPort(client: LedgerClient): LedgerPort {
  return {
    async execute(body, opts) {
      const res = await client.executeAndWaitForTransaction(body as never, { timeoutMs: opts.timeoutMs });
      return res.transaction as unknown as TransactionLike;
    },
    ledgerEnd: () => client.ledgerEndOffset(),
    async transactionAt(offset, party) {
      try {
        const res = await client.transactionByOffset({ offset, transactionFormat: transactionFormat(party) });
        return res.transaction as unknown as TransactionLike;
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
        if ('Transaction' in u) yield u.Transaction.value as unknown as TransactionLike;
      }
    },
  };
}

/** The wallet's own ledger token: static, re-read from a file, or OAuth client credentials (cached). */
export function ledgerTokenProvider(config: Config): string | (() => Promise<string>) | undefined {
  const t = config.ledgerToken;
  if (t.static) return t.static;
  if (t.file) {
    const file = t.file;
    return async () => (await readFile(file, 'utf8')).trim();
  }
  if (t.oauth) {
    const o = t.oauth;
    let cached: { token: string; until: number } | undefined;
    return async () => {
      if (cached && Date.now() < cached.until) return cached.token;
      const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: o.clientId });
      form.set('client_secret', o.clientSecret);
      if (o.audience) form.set('audience', o.audience);
      if (o.scope) form.set('scope', o.scope);
      const res = await fetch(o.tokenUrl, { method: 'POST', body: form });
      if (!res.ok) throw new Error(`token endpoint answered ${res.status}`);
      const json = (await res.json()) as { access_token?: string; expires_in?: number };
      if (!json.access_token) throw new Error('token endpoint gave no access_token');
      cached = {
        token: json.access_token,
        until: Date.now() + Math.max(30, (json.expires_in ?? 300) - 60) * 1000,
      };
      return cached.token;
    };
  }
  return undefined;
}

export function ledgerClient(
  baseUrl: string,
  token: string | (() => Promise<string>) | undefined,
  timeoutMs: number,
) {
  return new LedgerClient({ baseUrl, timeoutMs, ...(token ? { token } : {}) });
}
