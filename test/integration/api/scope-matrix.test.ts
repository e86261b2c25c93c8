// Every wallet API route × {no token, read, submit, approve, admin} × {unscoped, own party, other party}, over real HTTP
// and real Redis. Each cell gets a fresh target party ("alice-N") with its own key and, where the route needs one,
// a submission of hers; "own" tokens are scoped to that party, "other" tokens to an unrelated party (bob).
// The expected status of every cell is in TABLE. For listings a cell reads 200 when the target is listed and
// 404 when it is hidden; for a batch, the status of its one item.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { apiHarness, prepared } from '../../support/api-harness.ts';

type Role = 'read' | 'submit' | 'approve' | 'admin';
type Scope = 'unscoped' | 'own' | 'other';
/** [unscoped, own party, other party] */
type Row = readonly [number, number, number];
interface Expect {
  none: number;
  read: Row;
  submit: Row;
  /** Read and decide approvals (issue 15); never submit or administer. */
  approve: Row;
  admin: Row;
}

const TABLE: Record<string, Expect> = {
  'POST /wallet/v1/submissions': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [202, 202, 403],
    admin: [202, 202, 403],
  },
  // Intents: this harness has no registry (422 UNKNOWN_REGISTRY) and no ledger to prepare on (503), and its index
  // holds no instruction (404); a record not made from an intent cannot be prepared again (409).
  'POST /wallet/v1/transfers': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [422, 422, 403],
    admin: [422, 422, 403],
  },
  'POST /wallet/v1/transfer-instructions/{contractId}/{action}': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [404, 404, 404],
    admin: [404, 404, 404],
  },
  'POST /wallet/v1/commands': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [503, 503, 403],
    admin: [503, 503, 403],
  },
  'POST /wallet/v1/submissions/{id}/reprepare': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [409, 409, 404],
    admin: [409, 409, 404],
  },
  'POST /wallet/v1/submissions/batch': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [202, 202, 403],
    admin: [202, 202, 403],
  },
  'GET /wallet/v1/submissions/{id}': {
    none: 401,
    read: [200, 200, 404],
    approve: [200, 200, 404],
    submit: [200, 200, 404],
    admin: [200, 200, 404],
  },
  // A queued record of this harness (no worker): nothing was sent (409 NOT_SENT) and it can still commit (409
  // STILL_COMMITTABLE); only admins act, only on records they can see.
  'GET /wallet/v1/submissions/{id}/timeline': {
    none: 401,
    read: [200, 200, 404],
    approve: [200, 200, 404],
    submit: [200, 200, 404],
    admin: [200, 200, 404],
  },
  'POST /wallet/v1/submissions/{id}/search': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [403, 403, 403],
    admin: [409, 409, 404],
  },
  'POST /wallet/v1/submissions/{id}/expire': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [403, 403, 403],
    admin: [409, 409, 404],
  },
  'GET /wallet/v1/submissions/{id}/preview': {
    none: 401,
    read: [200, 200, 404],
    approve: [200, 200, 404],
    submit: [200, 200, 404],
    admin: [200, 200, 404],
  },
  'GET /wallet/v1/submissions/{id}?wait=1': {
    none: 401,
    read: [200, 200, 404],
    approve: [200, 200, 404],
    submit: [200, 200, 404],
    admin: [200, 200, 404],
  },
  'GET /wallet/v1/submissions': {
    none: 401,
    read: [200, 200, 404],
    approve: [200, 200, 404],
    submit: [200, 200, 404],
    admin: [200, 200, 404],
  },
  'GET /wallet/v1/submissions?party={party}': {
    none: 401,
    read: [200, 200, 403],
    approve: [200, 200, 403],
    submit: [200, 200, 403],
    admin: [200, 200, 403],
  },
  'GET /wallet/v1/updates/{updateId}': {
    none: 401,
    read: [200, 200, 404],
    approve: [200, 200, 404],
    submit: [200, 200, 404],
    admin: [200, 200, 404],
  },
  'POST /wallet/v1/keys': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [403, 403, 403],
    admin: [201, 403, 403],
  },
  'POST /wallet/v1/keys/adopt': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [403, 403, 403],
    // This wallet's only backend (files) takes over nothing: past the role checks, that is 422.
    admin: [422, 403, 403],
  },
  'GET /wallet/v1/keys': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [403, 403, 403],
    admin: [200, 200, 404],
  },
  'GET /wallet/v1/keys/{fingerprint}': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [403, 403, 403],
    admin: [200, 200, 404],
  },
  'POST /wallet/v1/keys/{fingerprint}/disable': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [403, 403, 403],
    admin: [200, 200, 404],
  },
  'POST /wallet/v1/parties': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [403, 403, 403],
    admin: [201, 403, 403],
  },
  'GET /wallet/v1/parties': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [403, 403, 403],
    admin: [200, 200, 404],
  },
  // This harness has no ledger: preparing is refused once the caller may (400), a key change has no admin API (409).
  'POST /wallet/v1/parties/prepare': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [403, 403, 403],
    admin: [400, 403, 403],
  },
  'GET /wallet/v1/parties/{party}': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [403, 403, 403],
    admin: [200, 200, 404],
  },
  'POST /wallet/v1/parties/{party}/keys': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [403, 403, 403],
    admin: [409, 409, 404],
  },
  // Approval policy routes (issue 15); this wallet has no policy, so nothing awaits approval here (the approval
  // flow's own party-scope cases are in approvals.test.ts): a decision on a queued submission is 409.
  'POST /wallet/v1/submissions/{id}/approvals': {
    none: 401,
    read: [403, 403, 403],
    approve: [409, 409, 404],
    submit: [403, 403, 403],
    admin: [409, 409, 404],
  },
  // Signature rounds: the harness's parties sign with one key, so their submissions have no round (409).
  'GET /wallet/v1/submissions/{id}/signatures': {
    none: 401,
    read: [409, 409, 404],
    approve: [409, 409, 404],
    submit: [409, 409, 404],
    admin: [409, 409, 404],
  },
  'POST /wallet/v1/submissions/{id}/signatures': {
    none: 401,
    read: [403, 403, 403],
    approve: [409, 409, 404],
    submit: [403, 403, 403],
    admin: [409, 409, 404],
  },
  'GET /wallet/v1/approvals': {
    none: 401,
    read: [200, 200, 200],
    approve: [200, 200, 200],
    submit: [200, 200, 200],
    admin: [200, 200, 200],
  },
  'GET /wallet/v1/approvals?party={party}': {
    none: 401,
    read: [200, 200, 403],
    approve: [200, 200, 403],
    submit: [200, 200, 403],
    admin: [200, 200, 403],
  },
  'GET /wallet/v1/policy': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [403, 403, 403],
    admin: [200, 200, 200],
  },
  'PUT /wallet/v1/policy': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [403, 403, 403],
    admin: [200, 403, 403],
  },
  // Governed changes (issue 29): reading is any admin's; a decision is an unscoped admin's (no proposal here: 404).
  'GET /wallet/v1/policy/versions': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [403, 403, 403],
    admin: [200, 200, 200],
  },
  'GET /wallet/v1/policy/proposals': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [403, 403, 403],
    admin: [200, 200, 200],
  },
  'GET /wallet/v1/policy/proposals/{id}': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [403, 403, 403],
    admin: [404, 404, 404],
  },
  'POST /wallet/v1/policy/proposals/{id}/approvals': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [403, 403, 403],
    admin: [404, 403, 403],
  },
  'POST /wallet/v1/policy/evaluate': {
    none: 401,
    read: [200, 200, 403],
    approve: [200, 200, 403],
    submit: [200, 200, 403],
    admin: [200, 200, 403],
  },
  // Events and webhooks (issue 14).
  'GET /wallet/v1/events': {
    none: 401,
    read: [200, 200, 403],
    approve: [200, 200, 403],
    submit: [200, 200, 403],
    admin: [200, 200, 403],
  },
  'POST /wallet/v1/webhooks': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [403, 403, 403],
    admin: [201, 201, 403],
  },
  'GET /wallet/v1/webhooks': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [403, 403, 403],
    admin: [200, 200, 404],
  },
  'GET /wallet/v1/webhooks/{id}': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [403, 403, 403],
    admin: [200, 200, 404],
  },
  'DELETE /wallet/v1/webhooks/{id}': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [403, 403, 403],
    admin: [204, 204, 404],
  },
  'POST /wallet/v1/webhooks/{id}/rotate-secret': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [403, 403, 403],
    admin: [200, 200, 404],
  },
  'GET /wallet/v1/webhooks/{id}/deliveries': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [403, 403, 403],
    admin: [200, 200, 404],
  },
  'POST /wallet/v1/webhooks/{id}/deliveries/{eventId}/redeliver': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [403, 403, 403],
    admin: [202, 202, 404],
  },
  // History and ledger reads (issue 14 part A).
  'GET /wallet/v1/parties/{party}/transactions': {
    none: 401,
    read: [200, 200, 404],
    approve: [200, 200, 404],
    submit: [200, 200, 404],
    admin: [200, 200, 404],
  },
  'GET /wallet/v1/parties/{party}/holdings': {
    none: 401,
    read: [200, 200, 404],
    approve: [200, 200, 404],
    submit: [200, 200, 404],
    admin: [200, 200, 404],
  },
  'GET /wallet/v1/parties/{party}/transfer-instructions': {
    none: 401,
    read: [200, 200, 404],
    approve: [200, 200, 404],
    submit: [200, 200, 404],
    admin: [200, 200, 404],
  },
  // No ledger in this harness: a read the scope allows reaches the (absent) ledger reads, 503.
  'GET /wallet/v1/ledger/transactions/{updateId}': {
    none: 401,
    read: [503, 503, 404],
    approve: [503, 503, 404],
    submit: [503, 503, 404],
    admin: [503, 503, 404],
  },
  'GET /wallet/v1/ledger/offsets/{offset}': {
    none: 401,
    read: [503, 503, 404],
    approve: [503, 503, 404],
    submit: [503, 503, 404],
    admin: [503, 503, 404],
  },
  'GET /wallet/v1/ledger/updates': {
    none: 401,
    read: [503, 503, 404],
    approve: [503, 503, 404],
    submit: [503, 503, 404],
    admin: [503, 503, 404],
  },
  'GET /wallet/v1/ledger/updates/offsets/{offset}': {
    none: 401,
    read: [503, 503, 404],
    approve: [503, 503, 404],
    submit: [503, 503, 404],
    admin: [503, 503, 404],
  },
  // The wallet's own ledger user acts for every party: only an unscoped admin reaches it (503: no ledger here).
  'GET /wallet/v1/ledger/user': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [403, 403, 403],
    admin: [503, 403, 403],
  },
  'PATCH /wallet/v1/ledger/user': {
    none: 401,
    read: [403, 403, 403],
    approve: [403, 403, 403],
    submit: [403, 403, 403],
    admin: [503, 403, 403],
  },
  // Vetting is the same for every party; no ledger in this harness, so an allowed read answers 503.
  'GET /wallet/v1/ledger/vetted-packages': {
    none: 401,
    read: [503, 503, 503],
    submit: [503, 503, 503],
    approve: [503, 503, 503],
    admin: [503, 503, 503],
  },
  'GET /wallet/v1/parties/{party}/activities': {
    none: 401,
    read: [503, 503, 404],
    submit: [503, 503, 404],
    approve: [503, 503, 404],
    admin: [503, 503, 404],
  },
  // The audit chain: admins only; a party-scoped admin sees its party's entries.
  'GET /wallet/v1/audit': {
    none: 401,
    read: [403, 403, 403],
    submit: [403, 403, 403],
    approve: [403, 403, 403],
    admin: [200, 200, 404],
  },
  // The deployment's moving parts: only an admin without party scope.
  'GET /wallet/v1/operations': {
    none: 401,
    read: [403, 403, 403],
    submit: [403, 403, 403],
    approve: [403, 403, 403],
    admin: [200, 403, 403],
  },
  // Any reader finds what its scope shows: 200 when the target's submission is found, 404 when hidden.
  'GET /wallet/v1/search': {
    none: 401,
    read: [200, 200, 404],
    submit: [200, 200, 404],
    approve: [200, 200, 404],
    admin: [200, 200, 404],
  },
  'POST /wallet/v1/console/links': {
    none: 401,
    read: [403, 403, 403],
    submit: [403, 403, 403],
    approve: [403, 403, 403],
    admin: [201, 403, 403],
  },
};

type H = Awaited<ReturnType<typeof apiHarness>>;
interface Target {
  party: string;
  fingerprint: string;
  submission?: string;
  updateId?: string;
  /** A webhook on the target's party and an event of hers (webhook routes). */
  webhook?: string;
  eventId?: string;
}

let h: H;
let bob: string;
let n = 0;

/** A target party; with a submission of hers (`final`: already committed, so `?wait` answers at once). */
async function target(withSubmission: boolean | 'final' | 'webhook'): Promise<Target> {
  const { id: party, fingerprint } = await h.party(`alice-${++n}`);
  const out: Target = { party, fingerprint };
  if (withSubmission === 'webhook') {
    const made = await h.call('POST', '/wallet/v1/webhooks', {
      token: await h.token('admin'),
      body: { url: 'http://127.0.0.1:9/hook', party },
    });
    expect(made.status).toBe(201);
    out.webhook = made.json.id as string;
    out.eventId = (await redis.xadd(
      `${h.config.redisPrefix}:events`,
      '*',
      'type',
      'ledger.gap',
      'party',
      party,
      'at',
      new Date().toISOString(),
      'body',
      '{}',
    )) as string;
    return out;
  }
  if (withSubmission) {
    const res = await h.call('POST', '/wallet/v1/submissions', {
      token: await h.token('admin'),
      body: prepared(party).body,
    });
    expect(res.status).toBe(202);
    out.submission = res.json.id as string;
    out.updateId = `upd-${out.submission}`;
    const final = withSubmission === 'final';
    await h.wallet.store.update(out.submission, (r) => ({
      ...r,
      updateId: out.updateId ?? null,
      ...(final ? { status: 'committed' as const } : {}),
    }));
  }
  return out;
}

const listed = (
  res: Awaited<ReturnType<H['call']>>,
  pick: (item: Record<string, unknown>) => unknown,
  want: string,
) =>
  res.status !== 200
    ? res.status
    : (res.json.items as Record<string, unknown>[]).some((i) => pick(i) === want)
      ? 200
      : 404;

/** Performs one route for `t` with `token`; answers the cell's status as TABLE defines it. */
const hook = (method: string, path: (t: Target) => string) => ({
  needsSubmission: 'webhook' as const,
  run: async (t: Target, token?: string) => (await h.call(method, path(t), token ? { token } : {})).status,
});

const ROUTES: Record<
  string,
  { needsSubmission: boolean | 'final' | 'webhook'; run: (t: Target, token?: string) => Promise<number> }
> = {
  'GET /wallet/v1/events': {
    needsSubmission: false,
    // A stream: the status is all this cell needs, then the request is dropped.
    run: async (t, token) => {
      const abort = new AbortController();
      const res = await fetch(`${h.wallet.url}/wallet/v1/events?party=${encodeURIComponent(t.party)}`, {
        headers: token ? { authorization: `Bearer ${token}` } : {},
        signal: abort.signal,
      });
      abort.abort();
      return res.status;
    },
  },
  'POST /wallet/v1/webhooks': {
    needsSubmission: false,
    run: async (t, token) =>
      (
        await h.call('POST', '/wallet/v1/webhooks', {
          ...(token ? { token } : {}),
          body: { url: 'http://127.0.0.1:9/hook', party: t.party },
        })
      ).status,
  },
  'GET /wallet/v1/webhooks': {
    needsSubmission: 'webhook',
    run: async (t, token) =>
      listed(
        await h.call('GET', '/wallet/v1/webhooks', token ? { token } : {}),
        (i) => i.id,
        t.webhook ?? '',
      ),
  },
  'GET /wallet/v1/webhooks/{id}': hook('GET', (t) => `/wallet/v1/webhooks/${t.webhook}`),
  'DELETE /wallet/v1/webhooks/{id}': hook('DELETE', (t) => `/wallet/v1/webhooks/${t.webhook}`),
  'POST /wallet/v1/webhooks/{id}/rotate-secret': hook(
    'POST',
    (t) => `/wallet/v1/webhooks/${t.webhook}/rotate-secret`,
  ),
  'GET /wallet/v1/webhooks/{id}/deliveries': hook(
    'GET',
    (t) => `/wallet/v1/webhooks/${t.webhook}/deliveries`,
  ),
  'POST /wallet/v1/webhooks/{id}/deliveries/{eventId}/redeliver': hook(
    'POST',
    (t) => `/wallet/v1/webhooks/${t.webhook}/deliveries/${t.eventId}/redeliver`,
  ),
  'POST /wallet/v1/submissions': {
    needsSubmission: false,
    run: async (t, token) =>
      (
        await h.call('POST', '/wallet/v1/submissions', {
          ...(token ? { token } : {}),
          body: prepared(t.party).body,
        })
      ).status,
  },
  'POST /wallet/v1/transfers': {
    needsSubmission: false,
    run: async (t, token) =>
      (
        await h.call('POST', '/wallet/v1/transfers', {
          ...(token ? { token } : {}),
          body: { party: t.party, receiver: bob, instrument: { admin: 'reg::1220', id: 'X' }, amount: '1' },
        })
      ).status,
  },
  'POST /wallet/v1/transfer-instructions/{contractId}/{action}': {
    needsSubmission: false,
    run: async (t, token) =>
      (
        await h.call('POST', '/wallet/v1/transfer-instructions/00abcd/accept', {
          ...(token ? { token } : {}),
          body: { party: t.party },
        })
      ).status,
  },
  'POST /wallet/v1/commands': {
    needsSubmission: false,
    run: async (t, token) =>
      (
        await h.call('POST', '/wallet/v1/commands', {
          ...(token ? { token } : {}),
          body: {
            party: t.party,
            commands: [{ CreateCommand: { templateId: '#quill-demo:Demo:Greeting', createArguments: {} } }],
          },
        })
      ).status,
  },
  'POST /wallet/v1/submissions/{id}/reprepare': {
    needsSubmission: true,
    run: async (t, token) =>
      (await h.call('POST', `/wallet/v1/submissions/${t.submission}/reprepare`, token ? { token } : {}))
        .status,
  },
  'POST /wallet/v1/submissions/batch': {
    needsSubmission: false,
    run: async (t, token) => {
      const res = await h.call('POST', '/wallet/v1/submissions/batch', {
        ...(token ? { token } : {}),
        body: { submissions: [prepared(t.party).body] },
      });
      return res.status === 200 ? ((res.json.items as { status: number }[])[0]?.status ?? 0) : res.status;
    },
  },
  'GET /wallet/v1/submissions/{id}': {
    needsSubmission: true,
    run: async (t, token) =>
      (await h.call('GET', `/wallet/v1/submissions/${t.submission}`, token ? { token } : {})).status,
  },
  'GET /wallet/v1/submissions/{id}/timeline': {
    needsSubmission: true,
    run: async (t, token) =>
      (await h.call('GET', `/wallet/v1/submissions/${t.submission}/timeline`, token ? { token } : {})).status,
  },
  'POST /wallet/v1/submissions/{id}/search': {
    needsSubmission: true,
    run: async (t, token) =>
      (await h.call('POST', `/wallet/v1/submissions/${t.submission}/search`, token ? { token } : {})).status,
  },
  'POST /wallet/v1/submissions/{id}/expire': {
    needsSubmission: true,
    run: async (t, token) =>
      (
        await h.call('POST', `/wallet/v1/submissions/${t.submission}/expire`, {
          ...(token ? { token } : {}),
          body: { reason: 'scope matrix' },
        })
      ).status,
  },
  'GET /wallet/v1/submissions/{id}/preview': {
    needsSubmission: true,
    run: async (t, token) =>
      (await h.call('GET', `/wallet/v1/submissions/${t.submission}/preview`, token ? { token } : {})).status,
  },
  'GET /wallet/v1/submissions/{id}?wait=1': {
    // Committed already: the wait returns at once instead of sleeping its second in every allowed cell.
    needsSubmission: 'final',
    run: async (t, token) =>
      (await h.call('GET', `/wallet/v1/submissions/${t.submission}?wait=1`, token ? { token } : {})).status,
  },
  'GET /wallet/v1/submissions': {
    needsSubmission: true,
    run: async (t, token) =>
      listed(
        await h.call('GET', '/wallet/v1/submissions?limit=200', token ? { token } : {}),
        (i) => i.id,
        t.submission ?? '',
      ),
  },
  'GET /wallet/v1/submissions?party={party}': {
    needsSubmission: true,
    run: async (t, token) =>
      listed(
        await h.call(
          'GET',
          `/wallet/v1/submissions?party=${encodeURIComponent(t.party)}`,
          token ? { token } : {},
        ),
        (i) => i.id,
        t.submission ?? '',
      ),
  },
  'GET /wallet/v1/updates/{updateId}': {
    needsSubmission: true,
    run: async (t, token) =>
      (await h.call('GET', `/wallet/v1/updates/${t.updateId}`, token ? { token } : {})).status,
  },
  'POST /wallet/v1/keys/adopt': {
    needsSubmission: false,
    run: async (_t, token) =>
      (
        await h.call('POST', '/wallet/v1/keys/adopt', {
          ...(token ? { token } : {}),
          body: { backend: 'file', ref: 'label:x' },
        })
      ).status,
  },
  'POST /wallet/v1/keys': {
    needsSubmission: false,
    run: async (_t, token) =>
      (
        await h.call('POST', '/wallet/v1/keys', {
          ...(token ? { token } : {}),
          body: { algorithm: 'ed25519' },
        })
      ).status,
  },
  'GET /wallet/v1/keys': {
    needsSubmission: false,
    run: async (t, token) =>
      listed(
        await h.call('GET', '/wallet/v1/keys', token ? { token } : {}),
        (i) => i.fingerprint,
        t.fingerprint,
      ),
  },
  'GET /wallet/v1/keys/{fingerprint}': {
    needsSubmission: false,
    run: async (t, token) =>
      (await h.call('GET', `/wallet/v1/keys/${t.fingerprint}`, token ? { token } : {})).status,
  },
  'POST /wallet/v1/keys/{fingerprint}/disable': {
    needsSubmission: false,
    run: async (t, token) => {
      const status = (
        await h.call('POST', `/wallet/v1/keys/${t.fingerprint}/disable`, token ? { token } : {})
      ).status;
      // A refused disable must leave the key active.
      const key = await h.call('GET', `/wallet/v1/keys/${t.fingerprint}`, { token: await h.token('admin') });
      expect(key.json.status).toBe(status === 200 ? 'disabled' : 'active');
      return status;
    },
  },
  'POST /wallet/v1/parties': {
    needsSubmission: false,
    run: async (t, token) =>
      (
        await h.call('POST', '/wallet/v1/parties', {
          ...(token ? { token } : {}),
          body: { keyFingerprint: t.fingerprint, partyHint: `new-${++n}` },
        })
      ).status,
  },
  'GET /wallet/v1/parties': {
    needsSubmission: false,
    run: async (t, token) =>
      listed(await h.call('GET', '/wallet/v1/parties', token ? { token } : {}), (i) => i.partyId, t.party),
  },
  'POST /wallet/v1/parties/prepare': {
    needsSubmission: false,
    run: async (t, token) =>
      (
        await h.call('POST', '/wallet/v1/parties/prepare', {
          ...(token ? { token } : {}),
          body: {
            partyHint: `new-${++n}`,
            namespaceKey: t.fingerprint,
            signingKeys: [{ fingerprint: t.fingerprint }],
            threshold: 1,
          },
        })
      ).status,
  },
  'GET /wallet/v1/parties/{party}': {
    needsSubmission: false,
    run: async (t, token) =>
      (await h.call('GET', `/wallet/v1/parties/${encodeURIComponent(t.party)}`, token ? { token } : {}))
        .status,
  },
  'POST /wallet/v1/parties/{party}/keys': {
    needsSubmission: false,
    run: async (t, token) =>
      (
        await h.call('POST', `/wallet/v1/parties/${encodeURIComponent(t.party)}/keys`, {
          ...(token ? { token } : {}),
          body: { threshold: 1 },
        })
      ).status,
  },
  'POST /wallet/v1/submissions/{id}/approvals': {
    needsSubmission: true,
    run: async (t, token) => {
      const rec = await h.wallet.store.getRecord(t.submission ?? '');
      return (
        await h.call('POST', `/wallet/v1/submissions/${t.submission}/approvals`, {
          ...(token ? { token } : {}),
          body: { decision: 'approve', hash: rec?.preparedTransactionHash ?? '' },
        })
      ).status;
    },
  },
  'GET /wallet/v1/submissions/{id}/signatures': {
    needsSubmission: true,
    run: async (t, token) =>
      (await h.call('GET', `/wallet/v1/submissions/${t.submission}/signatures`, token ? { token } : {}))
        .status,
  },
  'POST /wallet/v1/submissions/{id}/signatures': {
    needsSubmission: true,
    run: async (t, token) =>
      (
        await h.call('POST', `/wallet/v1/submissions/${t.submission}/signatures`, {
          ...(token ? { token } : {}),
          body: {
            signature: {
              format: 'SIGNATURE_FORMAT_CONCAT',
              signature: Buffer.alloc(64).toString('base64'),
              signedBy: t.fingerprint,
              signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519',
            },
          },
        })
      ).status,
  },
  'GET /wallet/v1/approvals': {
    needsSubmission: false,
    run: async (_t, token) => (await h.call('GET', '/wallet/v1/approvals', token ? { token } : {})).status,
  },
  'GET /wallet/v1/approvals?party={party}': {
    needsSubmission: false,
    run: async (t, token) =>
      (
        await h.call(
          'GET',
          `/wallet/v1/approvals?party=${encodeURIComponent(t.party)}`,
          token ? { token } : {},
        )
      ).status,
  },
  'GET /wallet/v1/policy': {
    needsSubmission: false,
    run: async (_t, token) => (await h.call('GET', '/wallet/v1/policy', token ? { token } : {})).status,
  },
  'PUT /wallet/v1/policy': {
    needsSubmission: false,
    // An empty document: allow everything (what the other cells of this wallet expect anyway).
    run: async (_t, token) =>
      (await h.call('PUT', '/wallet/v1/policy', { ...(token ? { token } : {}), body: {} })).status,
  },
  'GET /wallet/v1/policy/versions': {
    needsSubmission: false,
    run: async (_t, token) =>
      (await h.call('GET', '/wallet/v1/policy/versions', token ? { token } : {})).status,
  },
  'GET /wallet/v1/policy/proposals': {
    needsSubmission: false,
    run: async (_t, token) =>
      (await h.call('GET', '/wallet/v1/policy/proposals', token ? { token } : {})).status,
  },
  'GET /wallet/v1/policy/proposals/{id}': {
    needsSubmission: false,
    run: async (_t, token) =>
      (await h.call('GET', '/wallet/v1/policy/proposals/pp-none', token ? { token } : {})).status,
  },
  'POST /wallet/v1/policy/proposals/{id}/approvals': {
    needsSubmission: false,
    run: async (_t, token) =>
      (
        await h.call('POST', '/wallet/v1/policy/proposals/pp-none/approvals', {
          ...(token ? { token } : {}),
          body: { decision: 'approve', hash: '00' },
        })
      ).status,
  },
  'POST /wallet/v1/policy/evaluate': {
    needsSubmission: false,
    run: async (t, token) =>
      (
        await h.call('POST', '/wallet/v1/policy/evaluate', {
          ...(token ? { token } : {}),
          body: prepared(t.party).body,
        })
      ).status,
  },
  'GET /wallet/v1/parties/{party}/transactions': {
    needsSubmission: false,
    run: async (t, token) =>
      (
        await h.call(
          'GET',
          `/wallet/v1/parties/${encodeURIComponent(t.party)}/transactions`,
          token ? { token } : {},
        )
      ).status,
  },
  'GET /wallet/v1/parties/{party}/holdings': {
    needsSubmission: false,
    run: async (t, token) =>
      (
        await h.call(
          'GET',
          `/wallet/v1/parties/${encodeURIComponent(t.party)}/holdings`,
          token ? { token } : {},
        )
      ).status,
  },
  'GET /wallet/v1/parties/{party}/transfer-instructions': {
    needsSubmission: false,
    run: async (t, token) =>
      (
        await h.call(
          'GET',
          `/wallet/v1/parties/${encodeURIComponent(t.party)}/transfer-instructions`,
          token ? { token } : {},
        )
      ).status,
  },
  'GET /wallet/v1/ledger/transactions/{updateId}': {
    needsSubmission: false,
    run: async (t, token) =>
      (
        await h.call(
          'GET',
          `/wallet/v1/ledger/transactions/u1?party=${encodeURIComponent(t.party)}`,
          token ? { token } : {},
        )
      ).status,
  },
  'GET /wallet/v1/ledger/offsets/{offset}': {
    needsSubmission: false,
    run: async (t, token) =>
      (
        await h.call(
          'GET',
          `/wallet/v1/ledger/offsets/1?party=${encodeURIComponent(t.party)}`,
          token ? { token } : {},
        )
      ).status,
  },
  'GET /wallet/v1/ledger/updates': {
    needsSubmission: false,
    run: async (t, token) =>
      (
        await h.call(
          'GET',
          `/wallet/v1/ledger/updates?beginExclusive=0&endInclusive=5&party=${encodeURIComponent(t.party)}`,
          token ? { token } : {},
        )
      ).status,
  },
  'GET /wallet/v1/ledger/updates/offsets/{offset}': {
    needsSubmission: false,
    run: async (t, token) =>
      (
        await h.call(
          'GET',
          `/wallet/v1/ledger/updates/offsets/1?party=${encodeURIComponent(t.party)}`,
          token ? { token } : {},
        )
      ).status,
  },
  'GET /wallet/v1/ledger/user': {
    needsSubmission: false,
    run: async (_t, token) => (await h.call('GET', '/wallet/v1/ledger/user', token ? { token } : {})).status,
  },
  'PATCH /wallet/v1/ledger/user': {
    needsSubmission: false,
    run: async (_t, token) =>
      (
        await h.call('PATCH', '/wallet/v1/ledger/user', {
          ...(token ? { token } : {}),
          body: { user: { primaryParty: 'x::1220' }, updateMask: { paths: ['primary_party'] } },
        })
      ).status,
  },
  'GET /wallet/v1/ledger/vetted-packages': {
    needsSubmission: false,
    run: async (_t, token) =>
      (await h.call('GET', '/wallet/v1/ledger/vetted-packages', token ? { token } : {})).status,
  },
  'GET /wallet/v1/parties/{party}/activities': {
    needsSubmission: false,
    run: async (t, token) =>
      (
        await h.call(
          'GET',
          `/wallet/v1/parties/${encodeURIComponent(t.party)}/activities`,
          token ? { token } : {},
        )
      ).status,
  },
  'GET /wallet/v1/operations': {
    needsSubmission: false,
    run: async (_t, token) => (await h.call('GET', '/wallet/v1/operations', token ? { token } : {})).status,
  },
  'GET /wallet/v1/search': {
    needsSubmission: true,
    run: async (t, token) => {
      const res = await h.call(
        'GET',
        `/wallet/v1/search?q=${encodeURIComponent(t.submission ?? '')}`,
        token ? { token } : {},
      );
      if (res.status !== 200) return res.status;
      return (res.json.matches as { submission?: string }[]).some((m) => m.submission === t.submission)
        ? 200
        : 404;
    },
  },
  'POST /wallet/v1/console/links': {
    needsSubmission: false,
    run: async (t, token) =>
      (
        await h.call('POST', '/wallet/v1/console/links', {
          ...(token ? { token } : {}),
          body: { subject: 'new-approver', role: 'approve', party: t.party, ttlSeconds: 600 },
        })
      ).status,
  },
  'GET /wallet/v1/audit': {
    needsSubmission: true,
    run: async (t, token) =>
      listed(
        await h.call('GET', '/wallet/v1/audit?limit=1000', token ? { token } : {}),
        (i) => (i.fields as [string, string][]).find(([k]) => k === 'submission')?.[1],
        t.submission ?? '',
      ),
  },
};

let redis: Redis;
beforeAll(async () => {
  h = await apiHarness({ WAIT_MAX_SECONDS: '1', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
  redis = new Redis(inject('redisUrl'));
  bob = (await h.party('bob')).id;
});
afterAll(async () => {
  await h?.close();
  redis?.disconnect();
});

describe('scope matrix', () => {
  it('covers every route the API documents', async () => {
    const doc = await h.call('GET', '/openapi.json');
    const documented = Object.entries(doc.json.paths as Record<string, Record<string, unknown>>).flatMap(
      ([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`),
    );
    const covered = new Set(Object.keys(TABLE).map((k) => k.replace(/\?.*$/, '')));
    expect(documented.filter((r) => r.includes('/wallet/') && !covered.has(r))).toEqual([]);
    expect(Object.keys(ROUTES).sort()).toEqual(Object.keys(TABLE).sort());
  });

  for (const [route, expected] of Object.entries(TABLE)) {
    it(route, async () => {
      const { run, needsSubmission } = ROUTES[route] as (typeof ROUTES)[string];
      const got: Expect = {
        none: 0,
        read: [0, 0, 0],
        submit: [0, 0, 0],
        approve: [0, 0, 0],
        admin: [0, 0, 0],
      };
      got.none = await run(await target(needsSubmission));
      for (const role of ['read', 'submit', 'approve', 'admin'] as const satisfies readonly Role[]) {
        const row: number[] = [];
        for (const scope of ['unscoped', 'own', 'other'] as const satisfies readonly Scope[]) {
          const t = await target(needsSubmission);
          const party = scope === 'unscoped' ? undefined : scope === 'own' ? t.party : bob;
          row.push(await run(t, await h.token(role, party)));
        }
        got[role] = row as unknown as Row;
      }
      expect(got).toEqual(expected);
    });
  }
});
