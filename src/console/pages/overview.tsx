// Overview: what needs attention first (attention.tsx), then readiness, queue depth, submissions by status (each
// count a link to its list), the last hour's outcomes as a chart, latest failures.
import { answer } from '../client.ts';
import type { ConsoleDeps } from '../deps.ts';
import type { Ctx } from '../http.tsx';
import { Empty, Id, Page, Status, Time } from '../ui.tsx';
import { attention } from './attention.tsx';

const BUCKETS = 12;
const BUCKET_MS = 5 * 60_000;
const OUTCOMES = ['committed', 'rejected', 'expired'] as const;

export async function overviewPage(c: Ctx, deps: ConsoleDeps) {
  const api = c.get('api');
  const party = c.get('principal').party;
  const now = Date.now();
  const readyz = answer(api.readyz.$get()).then((r) => r.body);
  const [ready, needs, counts, jobs, outcomes, rejected, expired] = await Promise.all([
    readyz,
    attention(
      c,
      deps,
      readyz.then((r) => (r && 'keys' in r ? r.keys : undefined)),
    ),
    deps.statusCounts(party).catch(() => undefined),
    party === undefined ? deps.jobCounts().catch(() => undefined) : Promise.resolve(undefined),
    deps.outcomesSince(now - BUCKETS * BUCKET_MS, party).catch(() => undefined),
    answer(api.wallet.v1.submissions.$get({ query: { status: 'rejected', limit: '10' } })),
    answer(api.wallet.v1.submissions.$get({ query: { status: 'expired', limit: '10' } })),
  ]);
  const items = (r: typeof rejected) => (r.status === 200 ? r.body.items : []);
  const failures = [...items(rejected), ...items(expired)]
    .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))
    .slice(0, 10);
  return c.html(
    <Page title="Overview" viewer={c.get('viewer')} active="/console">
      <div data-live-region="attention">{needs}</div>
      <section aria-labelledby="h-ready" class="cards">
        <h2 id="h-ready">Readiness</h2>
        <Ready label="Redis" ok={ready?.redis} />
        <Ready label="Ledger" ok={ready?.ledger} />
        {ready?.ledgerAuth && !ready.ledgerAuth.ok && (
          <p class="card bad" data-testid="ready-ledger-auth">
            <strong>{ready.ledgerAuth.code}</strong> {ready.ledgerAuth.message}
          </p>
        )}
      </section>
      <section aria-labelledby="h-status" data-live-region="status">
        <h2 id="h-status">Submissions by status{party ? ' (your party)' : ''}</h2>
        {counts ? (
          <Counts
            counts={counts}
            testid="status-counts"
            href={(k) => `/console/submissions?status=${encodeURIComponent(k)}`}
          />
        ) : (
          <Empty>Redis is unavailable.</Empty>
        )}
      </section>
      {party === undefined && (
        <section aria-labelledby="h-queue" data-live-region="queue">
          <h2 id="h-queue">Queue depth by state</h2>
          {jobs ? <Counts counts={jobs} testid="queue-counts" /> : <Empty>Redis is unavailable.</Empty>}
        </section>
      )}
      <section aria-labelledby="h-hour" data-live-region="hour">
        <h2 id="h-hour">Outcomes over the last hour</h2>
        {outcomes ? <Chart outcomes={outcomes} now={now} /> : <Empty>The event log is unavailable.</Empty>}
      </section>
      <section aria-labelledby="h-fail" data-live-region="fail">
        <h2 id="h-fail">Latest failures</h2>
        {failures.length === 0 ? (
          <Empty>No rejected or expired submissions.</Empty>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Submission</th>
                <th scope="col">Status</th>
                <th scope="col">Code</th>
                <th scope="col">Message</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {failures.map((r) => (
                <tr>
                  <td>
                    <Id value={r.id} href={`/console/submissions/${encodeURIComponent(r.id)}`} />
                  </td>
                  <td>
                    <Status status={r.status} />
                  </td>
                  <td class="mono">{r.error?.code ?? ''}</td>
                  <td>{r.error?.message ?? ''}</td>
                  <td>
                    <Time at={r.updatedAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </Page>,
  );
}

const Ready = (p: { label: string; ok: boolean | undefined }) => (
  <p class={`card ${p.ok ? 'ok' : 'bad'}`} data-testid={`ready-${p.label.toLowerCase()}`}>
    <strong>{p.label}</strong> {p.ok ? 'ready' : 'not ready'}
  </p>
);

const Counts = (p: { counts: Record<string, number>; testid: string; href?: (key: string) => string }) => (
  <table class="counts" data-testid={p.testid}>
    <thead>
      <tr>
        {Object.keys(p.counts).map((k) => (
          <th scope="col">{k}</th>
        ))}
      </tr>
    </thead>
    <tbody>
      <tr>
        {Object.entries(p.counts).map(([k, v]) => (
          <td>{p.href ? <a href={p.href(k)}>{v}</a> : v}</td>
        ))}
      </tr>
    </tbody>
  </table>
);

/** Stacked bars of five-minute buckets; SVG attributes only (the CSP allows no inline style). */
function Chart(p: { outcomes: { type: string; at: string }[]; now: number }) {
  const start = p.now - BUCKETS * BUCKET_MS;
  const buckets = Array.from({ length: BUCKETS }, () => ({ committed: 0, rejected: 0, expired: 0 }));
  const totals = { committed: 0, rejected: 0, expired: 0 };
  for (const o of p.outcomes) {
    const kind = o.type.replace('submission.', '') as (typeof OUTCOMES)[number];
    if (!OUTCOMES.includes(kind)) continue;
    const i = Math.min(BUCKETS - 1, Math.floor((Date.parse(o.at) - start) / BUCKET_MS));
    const bucket = buckets[i];
    if (!bucket) continue;
    bucket[kind]++;
    totals[kind]++;
  }
  const max = Math.max(1, ...buckets.map((b) => b.committed + b.rejected + b.expired));
  const W = 24;
  const H = 100;
  const summary = `committed ${totals.committed}, rejected ${totals.rejected}, expired ${totals.expired}`;
  return (
    <figure class="chart">
      <svg
        width={BUCKETS * (W + 4)}
        height={H + 2}
        viewBox={`0 0 ${BUCKETS * (W + 4)} ${H + 2}`}
        role="img"
        aria-label={`Outcomes in five-minute buckets over the last hour: ${summary}`}
      >
        {buckets.map((b, i) => {
          let y = H;
          return OUTCOMES.map((k) => {
            // A failure stays visible beside thousands of commits: at least 3 px for any count.
            const h = b[k] > 0 ? Math.max(3, Math.round((b[k] / max) * H)) : 0;
            y -= h;
            return h > 0 ? <rect x={i * (W + 4)} y={y} width={W} height={h} class={`bar-${k}`} /> : null;
          });
        })}
        <line x1="0" y1={H + 1} x2={BUCKETS * (W + 4)} y2={H + 1} class="axis" />
      </svg>
      <figcaption data-testid="hour-totals">
        <span class="key bar-committed-key">committed {totals.committed}</span>
        <span class="key bar-rejected-key">rejected {totals.rejected}</span>
        <span class="key bar-expired-key">expired {totals.expired}</span> (five-minute buckets, oldest left)
      </figcaption>
    </figure>
  );
}
