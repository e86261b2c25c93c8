// A custody backend's first integration with Quill, end to end, against `npm start` (docs/integrating.md):
// prepare on the participant, submit the prepare response as it is with an Idempotency-Key, resend it, wait,
// find the result by update id, see it on the event stream, then ask Quill for a token transfer (an intent).
// Only the typed client (clients/typescript) and Node's builtins: no other Quill code.
//
//   npx tsx examples/custody-client/client.ts
//
// Env: QUILL_URL, LEDGER_URL, QUILL_TOKEN (else one is minted from AUTH_SECRET_FILE), PARTY, RECEIVER,
// LEDGER_USER_ID, LEDGER_TOKEN, DEMO_DIR (where `npm start` wrote .demo). Prints one line per step; exit 0 only if
// every step passed.
import { createHmac, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createQuillClient,
  type Submission,
  type SubmissionRequest,
} from '../../clients/typescript/index.ts';

const env = process.env;
const QUILL_URL = (env.QUILL_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
const LEDGER_URL = (env.LEDGER_URL ?? 'http://127.0.0.1:7575').replace(/\/+$/, '');
const DEMO_DIR = env.DEMO_DIR ?? '.demo';
const LEDGER_USER_ID = env.LEDGER_USER_ID ?? 'participant_admin'; // the demo wallet's ledger user
const FINAL = new Set(['committed', 'rejected', 'expired']);

class StepFailed extends Error {}
const fail = (message: string): never => {
  throw new StepFailed(message);
};

function demoFile(name: string): string | undefined {
  const path = join(DEMO_DIR, name);
  return existsSync(path) ? readFileSync(path, 'utf8').trim() : undefined;
}

/** The party: PARTY, else the one the demo wrote its prepared transaction for. */
function party(): string {
  if (env.PARTY) return env.PARTY;
  const file = demoFile('submission.json');
  const p = file ? (JSON.parse(file) as { party?: string }).party : undefined;
  return p ?? fail(`no party: set PARTY, or run from the folder where \`npm start\` wrote ${DEMO_DIR}/`);
}

/** QUILL_TOKEN, else an HS256 JWT signed with the demo's secret: role submit (a scope), scoped to the party. */
function token(forParty: string): string {
  if (env.QUILL_TOKEN) return env.QUILL_TOKEN;
  const secretFile = env.AUTH_SECRET_FILE ?? join(DEMO_DIR, 'auth-secret');
  if (!existsSync(secretFile))
    fail(`no token: set QUILL_TOKEN, or AUTH_SECRET_FILE (${secretFile} is missing)`);
  const secret = readFileSync(secretFile, 'utf8').trim();
  const now = Math.floor(Date.now() / 1000);
  const b64 = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const unsigned = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({
    scope: 'quill:submit',
    sub: 'custody-example', // a stable subject: Idempotency-Keys are scoped to it
    party: forParty,
    iat: now,
    exp: now + 600,
  })}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

/** A JSON call to the participant (the demo's sandbox needs no ledger token). */
async function ledger<T>(path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${LEDGER_URL}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      'content-type': 'application/json',
      ...(env.LEDGER_TOKEN ? { authorization: `Bearer ${env.LEDGER_TOKEN}` } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) fail(`${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

const describeError = (status: number, error: unknown) =>
  `${status} ${JSON.stringify((error as { error?: unknown })?.error ?? error).slice(0, 300)}`;

/** Follows GET /wallet/v1/events with a streaming reader: every event, parsed, as it comes. */
function subscribe(url: string, bearer: string) {
  const seen: { id: string; event: string; data: { type: string; body: { id?: string } } }[] = [];
  const abort = new AbortController();
  const ready = (async () => {
    const res = await fetch(url, {
      headers: { authorization: `Bearer ${bearer}` },
      signal: abort.signal,
    }).catch((err: unknown) =>
      fail(`cannot reach the wallet at ${QUILL_URL} (${(err as Error).cause ?? err}): is it running?`),
    );
    if (res.status !== 200 || !res.body) fail(`GET /wallet/v1/events: ${res.status} ${await res.text()}`);
    const reader = (res.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    // Reads in the background: `ready` resolves once the stream is open.
    void (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += value;
        // A blank line ends an event; lines starting with ':' are comments (`: ping`).
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields = Object.fromEntries(
            block
              .split('\n')
              .filter((l) => l && !l.startsWith(':'))
              .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trimStart()]),
          );
          if (fields.data)
            seen.push({ id: fields.id ?? '', event: fields.event ?? '', data: JSON.parse(fields.data) });
        }
      }
    })().catch(() => {});
  })();
  return {
    ready,
    async waitFor(pred: (e: (typeof seen)[number]) => boolean, ms: number) {
      const until = Date.now() + ms;
      while (Date.now() < until) {
        const hit = seen.find(pred);
        if (hit) return hit;
        await new Promise((r) => setTimeout(r, 50));
      }
      return undefined;
    },
    close: () => abort.abort(),
  };
}

const results: boolean[] = [];
async function step(n: number, name: string, run: () => Promise<string>): Promise<boolean> {
  try {
    const detail = await run();
    console.log(`ok   ${n} ${name}: ${detail}`);
    results.push(true);
    return true;
  } catch (err) {
    const message = err instanceof StepFailed ? err.message : err instanceof Error ? err.stack : String(err);
    console.log(`FAIL ${n} ${name}: ${message}`);
    results.push(false);
    return false;
  }
}
const skip = (n: number, name: string, why: string) => {
  console.log(`skip ${n} ${name}: ${why}`);
  results.push(false);
};

async function main(): Promise<void> {
  const me = party();
  const bearer = token(me);
  const quill = createQuillClient(QUILL_URL, bearer);

  // Open the stream first: without Last-Event-ID it carries the events written from now on.
  const events = subscribe(`${QUILL_URL}/wallet/v1/events?party=${encodeURIComponent(me)}`, bearer);
  await events.ready;

  let record: Submission | undefined;
  const key = `example-${randomUUID()}`;
  let prepared: Record<string, unknown> = {};
  // The whole prepare response (hashingDetails, costEstimation and all) plus the party: the wallet ignores what
  // it does not use.
  const asIs = () => ({ ...prepared, party: me }) as SubmissionRequest;

  const submitted = await step(1, 'prepare on the participant, submit the answer as it is', async () => {
    const { connectedSynchronizers } = await ledger<{ connectedSynchronizers: { synchronizerId: string }[] }>(
      '/v2/state/connected-synchronizers',
    );
    const synchronizerId =
      connectedSynchronizers[0]?.synchronizerId ?? fail('the participant has no synchronizer');
    prepared = await ledger<Record<string, unknown>>('/v2/interactive-submission/prepare', {
      commands: [
        {
          CreateCommand: {
            templateId: '#quill-demo:Demo:Greeting',
            createArguments: { owner: me, message: 'hello from the custody example' },
          },
        },
      ],
      commandId: `example-${randomUUID()}`,
      userId: LEDGER_USER_ID,
      actAs: [me],
      readAs: [],
      disclosedContracts: [],
      synchronizerId,
      packageIdSelectionPreference: [],
      verboseHashing: false,
    });
    const { data, error, response } = await quill.POST('/wallet/v1/submissions', {
      params: { header: { 'idempotency-key': key } },
      body: asIs(),
    });
    if (!data) return fail(describeError(response.status, error));
    record = data;
    return `${data.id} ${data.status} (${response.status})`;
  });

  if (submitted && record) {
    const first = record;
    await step(2, 'resend with the same Idempotency-Key', async () => {
      const { data, error, response } = await quill.POST('/wallet/v1/submissions', {
        params: { header: { 'idempotency-key': key } },
        body: asIs(),
      });
      if (!data) return fail(describeError(response.status, error));
      if (data.id !== first.id) fail(`a new record ${data.id}, not ${first.id}`);
      return `same record ${data.id} (${response.status})`;
    });

    const waited = await step(3, 'wait for the outcome (?wait=)', async () => {
      let rec = first;
      for (let i = 0; i < 6 && !FINAL.has(rec.status); i++) {
        const { data, error, response } = await quill.GET('/wallet/v1/submissions/{id}', {
          params: { path: { id: first.id }, query: { wait: 10 } },
        });
        if (!data) return fail(describeError(response.status, error));
        rec = data;
      }
      record = rec;
      if (rec.status !== 'committed') fail(`${rec.status} ${JSON.stringify(rec.error)}`);
      return `committed, update ${rec.updateId}`;
    });

    const updateId = record.updateId;
    if (waited && updateId) {
      await step(4, 'find the result by update id', async () => {
        const { data, error, response } = await quill.GET('/wallet/v1/updates/{updateId}', {
          params: { path: { updateId } },
        });
        if (!data) return fail(describeError(response.status, error));
        if (data.id !== first.id) fail(`update ${updateId} belongs to ${data.id}, not ${first.id}`);
        const tx = data.transaction ?? fail('the record carries no transaction');
        if (tx.updateId !== updateId) fail(`its transaction is ${tx.updateId}`);
        return `${data.id}, ${tx.events.length} event(s) at offset ${tx.offset}`;
      });
    } else skip(4, 'find the result by update id', 'no update id');

    await step(5, 'see submission.committed on the event stream', async () => {
      const hit = await events.waitFor(
        (e) => e.event === 'submission.committed' && e.data.body.id === first.id,
        10_000,
      );
      return hit ? `event ${hit.id}` : fail(`no submission.committed for ${first.id} within 10 s`);
    });
  } else {
    for (const [n, name] of [
      [2, 'resend with the same Idempotency-Key'],
      [3, 'wait for the outcome (?wait=)'],
      [4, 'find the result by update id'],
      [5, 'see submission.committed on the event stream'],
    ] as const)
      skip(n, name, 'nothing was submitted');
  }

  await step(6, 'transfer intent: POST /wallet/v1/transfers, wait for committed', async () => {
    const receiver =
      env.RECEIVER ??
      demoFile('receiver') ??
      fail(`no receiver: set RECEIVER to a second party (or write it to ${DEMO_DIR}/receiver)`);
    const {
      data: holdings,
      error,
      response,
    } = await quill.GET('/wallet/v1/parties/{party}/holdings', {
      params: { path: { party: me } },
    });
    if (!holdings) return fail(describeError(response.status, error));
    const funded = holdings.instruments.find((i) => /[1-9]/.test(i.unlocked));
    if (!funded) return fail(`${me} holds nothing unlocked to send`);
    const {
      data,
      error: refused,
      response: res,
    } = await quill.POST('/wallet/v1/transfers', {
      params: { query: { wait: 10 }, header: { 'idempotency-key': `transfer-${randomUUID()}` } },
      body: { party: me, receiver, instrument: funded.instrument, amount: '1', memo: 'custody example' },
    });
    if (!data) return fail(describeError(res.status, refused));
    const body = data;
    let rec: Submission = body;
    for (let i = 0; i < 6 && !FINAL.has(rec.status); i++) {
      const {
        data,
        error: e,
        response: r,
      } = await quill.GET('/wallet/v1/submissions/{id}', {
        params: { path: { id: rec.id }, query: { wait: 10 } },
      });
      if (!data) return fail(describeError(r.status, e));
      rec = data;
    }
    if (rec.status !== 'committed') fail(`${rec.id} ${rec.status} ${JSON.stringify(rec.error)}`);
    return `1 ${funded.instrument.id} to ${receiver.split('::')[0]}: ${rec.id} committed, update ${rec.updateId}`;
  });

  events.close();
  const failed = results.filter((ok) => !ok).length;
  if (failed > 0) {
    console.log(`custody example: ${failed} of ${results.length} steps did not pass`);
    process.exit(1);
  }
  console.log(`custody example: all ${results.length} steps passed`);
}

main().catch((err: unknown) => {
  console.error(`custody example: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
