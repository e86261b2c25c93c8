// The monitoring pack (monitoring/): promtool accepts the alert rules and their unit tests pass, and every metric a
// rule names is one a real wallet serves on /metrics, so no rule can watch a metric that does not exist. promtool
// is Debian's `prometheus` package (.ci/run installs it); the wallet is a whole one (API, worker, ledger watcher)
// on the embedded sandbox and a real Redis.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Sandbox } from '@quill/sandbox';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse } from 'yaml';
import { startConsoleWallet } from '../../support/console.ts';
import { startLedger, walletConfig } from '../../support/wallet.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const PROMTOOL = process.env.PROMTOOL ?? 'promtool';

function promtool(...args: string[]) {
  const r = spawnSync(PROMTOOL, args, { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  if (r.error) throw new Error(`${PROMTOOL}: ${r.error.message} (apt-get install prometheus)`);
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

/** Every metric name in the rules' expressions: Quill's own (`quill_…`) and the process's (`nodejs_…`, `process_…`). */
function ruleMetrics(): Set<string> {
  const doc = parse(readFileSync(join(ROOT, 'monitoring/alerts.yml'), 'utf8')) as {
    groups: { rules: { alert?: string; expr: string }[] }[];
  };
  const names = new Set<string>();
  for (const g of doc.groups)
    for (const r of g.rules)
      for (const m of String(r.expr).matchAll(/\b(?:quill|nodejs|process)_[a-z0-9_]+/g)) names.add(m[0]);
  return names;
}

/** The metric families /metrics declares (`# TYPE name kind`), with a histogram's series names beside its own. */
function served(text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [, name, kind] = m as unknown as [string, string, string];
    names.add(name);
    if (kind === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(`${name}${s}`);
  }
  return names;
}

/** The value of one series (`name{labels} value`) in the exposition text. */
function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('promtool', () => {
  it('accepts the alert rules', () => {
    const r = promtool('check', 'rules', 'monitoring/alerts.yml');
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/SUCCESS: \d+ rules found/);
  });

  it("passes the rules' unit tests", () => {
    const r = promtool('test', 'rules', 'monitoring/alerts.test.yml');
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('SUCCESS');
  });

  it('has a firing and a quiet case for every alert', () => {
    const alerts = (
      parse(readFileSync(join(ROOT, 'monitoring/alerts.yml'), 'utf8')) as {
        groups: { rules: { alert: string }[] }[];
      }
    ).groups.flatMap((g) => g.rules.map((r) => r.alert));
    const tests = parse(readFileSync(join(ROOT, 'monitoring/alerts.test.yml'), 'utf8')) as {
      tests: { alert_rule_test: { alertname: string; exp_alerts: unknown[] }[] }[];
    };
    const cases = tests.tests.flatMap((t) => t.alert_rule_test);
    for (const a of alerts) {
      expect(
        cases.some((c) => c.alertname === a && c.exp_alerts.length > 0),
        `${a} fires`,
      ).toBe(true);
      expect(
        cases.some((c) => c.alertname === a && c.exp_alerts.length === 0),
        `${a} stays quiet`,
      ).toBe(true);
    }
  });
});

describe('the metrics the rules name', () => {
  let sandbox: Sandbox;
  let w: Awaited<ReturnType<typeof startConsoleWallet>>;

  beforeAll(async () => {
    sandbox = await startLedger();
    w = await startConsoleWallet(sandbox, walletConfig(inject('redisUrl')));
  });
  afterAll(async () => {
    await w?.wallet.close();
    await sandbox?.close();
  });

  it('are all served by a running wallet', async () => {
    const res = await fetch(`${w.url}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    const have = served(text);
    const named = ruleMetrics();
    expect(named.size).toBeGreaterThan(10);
    expect([...named].filter((n) => !have.has(n))).toEqual([]);
    // The ones that say what is wrong by themselves read true values.
    expect(value(text, 'quill_redis_up')).toBe(1);
    expect(value(text, 'quill_keystore_readable')).toBe(1);
    expect(value(text, 'quill_keystore_broken_keys')).toBe(0);
    expect(value(text, 'quill_event_relay_lag_seconds')).toBe(0);
    expect(value(text, 'quill_queue_oldest_waiting_seconds')).toBe(0);
    expect(value(text, 'quill_submissions_oldest_seconds{status="executing"}')).toBe(0);
    expect(value(text, 'quill_webhook_dead_letters')).toBe(0);
    // The process's own: its memory and its event loop, for the rules that watch a long-running process.
    expect(value(text, 'process_resident_memory_bytes')).toBeGreaterThan(10_000_000);
    expect(value(text, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0);
  });

  it('follow the ledger watcher: its checkpoint reaches the ledger end, lag 0', async () => {
    const key = await w.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519' });
    expect(key.status).toBe(201);
    const party = await w.call('POST', '/wallet/v1/parties', {
      keyFingerprint: key.json.fingerprint,
      partyHint: 'monitored',
    });
    expect(party.status).toBe(201);
    const end = Date.now() + 20_000;
    let text = '';
    for (;;) {
      text = await (await fetch(`${w.url}/metrics`)).text();
      const checkpoint = value(text, 'quill_ledger_watcher_checkpoint_offset') ?? 0;
      if (checkpoint > 0 && value(text, 'quill_ledger_watcher_lag_offsets') === 0) break;
      if (Date.now() > end) throw new Error(`the watcher never caught up: ${text}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(value(text, 'quill_ledger_watcher_checkpoint_offset')).toBeGreaterThan(0);
  });

  it('are the ones the Grafana dashboard shows', () => {
    const dashboard = readFileSync(join(ROOT, 'monitoring/grafana-dashboard.json'), 'utf8');
    JSON.parse(dashboard);
    for (const n of ruleMetrics()) expect(dashboard, n).toContain(n);
  });
});
