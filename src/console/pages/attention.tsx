// "Needs attention": the top of the overview, what needs a human now. Each line is a count (or a state) and a link to
// the list that shows it. Everything is read through the API as the operator; what its role cannot read is left out.
import type { Principal } from '../../auth/index.ts';
import { readAudit } from '../audit-read.ts';
import { answer } from '../client.ts';
import type { ConsoleDeps } from '../deps.ts';
import type { Ctx } from '../http.tsx';
import { Id, Time } from '../ui.tsx';

/** Executing longer than this, or queued or delayed longer than this, is stuck. */
export const STUCK_MINUTES = 10;
const DAY_MS = 24 * 3600_000;
/** The watcher further behind the ledger's end than this many offsets is lagging. */
const LAG_OFFSETS = 100;

type Tone = 'bad' | 'warn' | 'ok';
interface Line {
  tone: Tone;
  testid: string;
  text: string;
  href?: string;
  detail?: unknown;
}

const minutesAgo = (now: number, m: number) => new Date(now - m * 60_000).toISOString();
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const atLeast = (items: unknown[], limit: number) =>
  items.length >= limit ? `${limit}+` : `${items.length}`;

/** `readyKeys`: /readyz's key files (the overview reads /readyz once for both). */
export async function attention(
  c: Ctx,
  deps: ConsoleDeps,
  readyKeys: Promise<{ broken: number | null } | undefined>,
) {
  const api = c.get('api');
  const who: Principal = c.get('principal');
  const now = Date.now();
  const unscopedAdmin = who.role === 'admin' && who.party === undefined;
  const old = minutesAgo(now, STUCK_MINUTES);
  const [approvals, executing, queued, disabled, ops, keys] = await Promise.all([
    answer(api.wallet.v1.approvals.$get({ query: {} })),
    answer(api.wallet.v1.submissions.$get({ query: { status: 'executing', limit: '100' } })),
    answer(api.wallet.v1.submissions.$get({ query: { status: 'queued', until: old, limit: '100' } })),
    readAudit(deps, who, {
      want: 20,
      scan: 5000,
      keep: (r) => r.kind === 'key.disable' && Date.parse(r.fields.at ?? '') >= now - DAY_MS,
    }).catch(() => undefined),
    unscopedAdmin ? answer(api.wallet.v1.operations.$get()) : Promise.resolve(undefined),
    readyKeys.catch(() => undefined),
  ]);
  const lines: Line[] = [];

  if (approvals.status === 200) {
    const items = approvals.body.items;
    const deadlines = items
      .map((r) => r.approval?.deadline)
      .filter((d): d is string => !!d)
      .sort();
    const oldest = items.map((r) => r.createdAt).sort()[0];
    lines.push({
      tone: items.length > 0 ? 'warn' : 'ok',
      testid: 'attention-approvals',
      text:
        items.length === 0
          ? 'Nothing awaits approval'
          : `${plural(items.length, 'submission')} awaiting approval`,
      href: '/console/approvals',
      detail: items.length > 0 && (
        <>
          {' · oldest '}
          <Time at={oldest} />
          {deadlines[0] && (
            <>
              {' · nearest deadline '}
              <Time at={deadlines[0]} />
            </>
          )}
        </>
      ),
    });
  }

  const exec = executing.status === 200 ? executing.body.items : [];
  const unknown = exec.filter((r) => r.error?.code === 'OUTCOME_UNKNOWN');
  const slow = exec.filter((r) => r.error?.code !== 'OUTCOME_UNKNOWN' && r.createdAt < old);
  const stuck = [...unknown, ...slow];
  if (executing.status === 200)
    lines.push({
      tone: unknown.length > 0 ? 'bad' : slow.length > 0 ? 'warn' : 'ok',
      testid: 'attention-executing',
      text:
        stuck.length === 0
          ? `Nothing stuck executing (unknown outcome, or over ${STUCK_MINUTES} min)`
          : `${atLeast(unknown, 100)} executing with an unknown outcome, ${atLeast(slow, 100)} executing for over ${STUCK_MINUTES} min`,
      // Every executing record: one with an unknown outcome may be a minute old.
      href: '/console/submissions?status=executing',
    });
  if (queued.status === 200)
    lines.push({
      tone: queued.body.items.length > 0 ? 'warn' : 'ok',
      testid: 'attention-queued',
      text: `${atLeast(queued.body.items, 100)} queued for over ${STUCK_MINUTES} min`,
      href: `/console/submissions?status=queued&olderThan=${STUCK_MINUTES}m`,
    });

  if (unscopedAdmin && keys) {
    const broken = keys.broken;
    lines.push({
      tone: broken === 0 ? 'ok' : 'bad',
      testid: 'attention-keys-broken',
      text:
        broken === null
          ? 'Key files could not be checked'
          : broken === 0
            ? 'Every key file opens'
            : `${plural(broken, 'key file')} that do not open`,
      href: '/console/keys',
    });
  }
  if (disabled?.status === 200)
    lines.push({
      tone: disabled.rows.length > 0 ? 'warn' : 'ok',
      testid: 'attention-keys-disabled',
      text: `${plural(disabled.rows.length, 'key')} disabled in the last 24 h`,
      href: '/console/audit?kind=key.disable',
      detail: disabled.rows.slice(0, 3).map((r) => (
        <>
          {' · '}
          <Id value={r.fields.keyFingerprint ?? ''} href={`/console/keys/${r.fields.keyFingerprint ?? ''}`} />
          {r.fields.reason ? ` (${r.fields.reason})` : ''}
        </>
      )),
    });

  if (ops?.status === 200) {
    const o = ops.body;
    const dead = o.webhooks.reduce((n, h) => n + h.dead, 0);
    lines.push({
      tone: dead > 0 ? 'bad' : 'ok',
      testid: 'attention-dead-letters',
      text: `${plural(dead, 'webhook dead letter')}`,
      detail: o.webhooks
        .filter((h) => h.dead > 0)
        .map((h) => ` · ${h.url}: ${h.dead}`)
        .join(''),
    });
    const { checkpoint, ledgerEnd, lease } = o.watcher;
    const lag = checkpoint !== null && ledgerEnd !== null ? Math.max(0, ledgerEnd - checkpoint) : null;
    lines.push({
      tone: lease === null || lag === null ? 'bad' : lag > LAG_OFFSETS ? 'warn' : 'ok',
      testid: 'attention-watcher',
      text:
        lease === null
          ? 'No watcher holds the lease: incoming transactions are not indexed'
          : lag === null
            ? `Watcher at offset ${checkpoint ?? '—'}; the ledger's end is not known (ledger not answering)`
            : `Watcher ${lag === 0 ? 'at the ledger end' : `${plural(lag, 'offset')} behind`} (checkpoint ${checkpoint}, ledger end ${ledgerEnd})`,
      detail: lease ? ` · held by ${lease.holder}` : undefined,
    });
    lines.push({
      tone: o.leader === null ? 'bad' : 'ok',
      testid: 'attention-leader',
      text:
        o.leader === null
          ? 'No worker holds the leader lease: sweeps and retention do not run'
          : `Worker leader lease held by ${o.leader.holder} (renewed; ${Math.round(o.leader.ttlMs / 1000)} s left)`,
    });
    const waitingOld = o.queue.oldestWaitingAt && o.queue.oldestWaitingAt < old;
    lines.push({
      tone: waitingOld ? 'warn' : 'ok',
      testid: 'attention-jobs',
      text: `${plural(o.queue.waiting, 'job')} waiting, ${o.queue.delayed} delayed`,
      href: `/console/submissions?status=queued&olderThan=${STUCK_MINUTES}m`,
      detail: (
        <>
          {o.queue.oldestWaitingAt && (
            <>
              {' · oldest waiting since '}
              <Time at={o.queue.oldestWaitingAt} />
            </>
          )}
          {o.queue.oldestDelayedAt && (
            <>
              {' · oldest delayed since '}
              <Time at={o.queue.oldestDelayedAt} />
            </>
          )}
        </>
      ),
    });
  }

  return (
    <section aria-labelledby="h-attention" data-testid="attention">
      <h2 id="h-attention">Needs attention</h2>
      <ul class="attention">
        {lines
          .sort((a, b) => rank(a.tone) - rank(b.tone))
          .map((l) => (
            <li class={l.tone} data-testid={l.testid} data-tone={l.tone}>
              <span class="visually-hidden">{l.tone === 'ok' ? 'fine: ' : 'attention: '}</span>
              {l.href ? <a href={l.href}>{l.text}</a> : l.text}
              {l.detail}
            </li>
          ))}
      </ul>
      {stuck.length > 0 && (
        <table data-testid="stuck">
          <caption>Stuck executing</caption>
          <thead>
            <tr>
              <th scope="col">Submission</th>
              <th scope="col">Party</th>
              <th scope="col">Why</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {stuck.slice(0, 10).map((r) => (
              <tr data-id={r.id}>
                <td>
                  <Id value={r.id} href={`/console/submissions/${encodeURIComponent(r.id)}`} />
                </td>
                <td>
                  <Id value={r.party} href={`/console/parties/${encodeURIComponent(r.party)}`} />
                </td>
                <td class="mono">{r.error?.code ?? `executing over ${STUCK_MINUTES} min`}</td>
                <td>
                  <Time at={r.createdAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

const rank = (t: Tone) => (t === 'bad' ? 0 : t === 'warn' ? 1 : 2);
