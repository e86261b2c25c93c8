// Retention windows (issue 32): decimal hours everywhere (a soak run's `0.05` = 3 minutes), integers as before,
// defaults, and how often the leader's sweep runs for them.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/index.ts';
import { retentionEveryMs } from '../../../src/server/roles/worker.ts';

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return [...err.problems];
    throw err;
  }
  return [];
}

describe('retention windows', () => {
  it('default: payloads and webhook deliveries a week, records and history 90 days, events a week', () => {
    const c = loadConfig({});
    expect(c.payloadRetentionMs).toBe(168 * 3_600_000);
    expect(c.retention).toEqual({
      recordsMs: 2160 * 3_600_000,
      webhooksMs: 168 * 3_600_000,
      historyMs: 2160 * 3_600_000,
    });
    expect(c.events.retentionMs).toBe(168 * 3_600_000);
  });

  it('accepts decimal hours in every window, integers as before, 0 = forever (at the next sweep for payloads)', () => {
    const c = loadConfig({
      PAYLOAD_RETENTION_HOURS: '0.05',
      RECORD_RETENTION_HOURS: '0.05',
      EVENTS_RETENTION_HOURS: '0.05',
      WEBHOOK_RETENTION_HOURS: '0.5',
      HISTORY_RETENTION_HOURS: '0',
    });
    expect(c.payloadRetentionMs).toBe(180_000);
    expect(c.retention).toEqual({ recordsMs: 180_000, webhooksMs: 1_800_000, historyMs: 0 });
    expect(c.events.retentionMs).toBe(180_000);
    expect(
      loadConfig({ PAYLOAD_RETENTION_HOURS: '24', EVENTS_RETENTION_HOURS: '1' }).events.retentionMs,
    ).toBe(3_600_000);
  });

  it('refuses what is not a number of hours in range', () => {
    for (const name of [
      'PAYLOAD_RETENTION_HOURS',
      'RECORD_RETENTION_HOURS',
      'EVENTS_RETENTION_HOURS',
      'WEBHOOK_RETENTION_HOURS',
      'HISTORY_RETENTION_HOURS',
    ]) {
      for (const bad of ['-1', 'soon', '1e9', 'Infinity']) {
        expect(problems({ [name]: bad }).join('\n'), `${name}=${bad}`).toContain(name);
      }
    }
  });

  it('sweeps as often as the recovery sweep, or a quarter of the shortest window, at most once a second', () => {
    expect(retentionEveryMs(10_000, [168 * 3_600_000, 0])).toBe(10_000);
    expect(retentionEveryMs(10_000, [180_000, 168 * 3_600_000])).toBe(10_000);
    expect(retentionEveryMs(60_000, [180_000])).toBe(45_000);
    expect(retentionEveryMs(10_000, [1_800])).toBe(1000);
    expect(retentionEveryMs(100, [1_800])).toBe(100);
    expect(retentionEveryMs(10_000, [0, 0])).toBe(10_000);
  });
});
