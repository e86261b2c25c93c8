import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiHarness, prepared } from '../../support/api-harness.ts';

let h: Awaited<ReturnType<typeof apiHarness>>;
beforeAll(async () => {
  h = await apiHarness();
});
afterAll(() => h.close());

// Control characters, bidi overrides/isolates, separators: what must never come back raw.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/u;

describe('echoed ids', () => {
  it('escapes control and bidi characters and bounds the length in 404 messages', async () => {
    const read = await h.token('read');
    const raw = '\u202eevil\u2066\u001b[31mred\u0007\u2028';
    const short = encodeURIComponent(`${raw}${'x'.repeat(60)}`); // within the id schemas' 100 characters
    const long = encodeURIComponent(`${raw}${'x'.repeat(5000)}`);
    const cases = [
      await h.call('GET', `/wallet/v1/submissions/${short}`, { token: read }),
      await h.call('GET', `/wallet/v1/updates/${short}`, { token: read }),
      await h.call('GET', `/wallet/v1/nothing-here/${long}`, { token: read }),
    ];
    for (const res of cases) {
      expect(res.status, res.text).toBe(404);
      const message = res.json.error?.message ?? '';
      expect(message).not.toMatch(UNSAFE);
      expect(message).toContain('\\u{202e}evil\\u{2066}\\u{1b}[31mred\\u{7}\\u{2028}');
      expect(message.length).toBeLessThan(400);
    }
    expect(cases[2]?.json.error?.message).toMatch(/more characters\)$/);
  });

  it('escapes a party echoed from the request body', async () => {
    const alice = await h.party('alice');
    const { body } = prepared(alice.id);
    const res = await h.call('POST', '/wallet/v1/submissions', {
      token: await h.token('submit'),
      body: { ...body, party: 'mallory\u202e::1220ff' },
    });
    expect(res.json.error?.code).toBe('PARTY_MISMATCH');
    expect(res.json.error?.message).toContain('mallory\\u{202e}::1220ff');
    expect(res.json.error?.message).not.toMatch(UNSAFE);
  });
});

describe('audit entries of signatures that were never stored', () => {
  it('labels them stored=false and names the record that holds the command id', async () => {
    const alice = await h.party('audit-alice');
    const p = prepared(alice.id);
    // The same body several times in one batch: items run concurrently, each passes the checks and is signed,
    // and only one record can hold the command id.
    const batch = await h.call('POST', '/wallet/v1/submissions/batch', {
      token: await h.token('submit'),
      body: { submissions: [p.body, p.body, p.body, p.body, p.body] },
    });
    expect(batch.status, batch.text).toBe(200);
    const log = (await h.wallet.audit.signatures()).filter((e) => e.hash === p.hashHex);
    expect(log.length).toBeGreaterThan(1); // the attack: more signatures than records
    const stored = await Promise.all(log.map((e) => h.wallet.store.get(e.submission)));
    const kept = log.filter((_, i) => stored[i] !== undefined);
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({ stored: 'true' });
    for (const [i, e] of log.entries()) {
      if (stored[i] !== undefined) continue;
      // No dangling id: the entry says it was not stored and which record was.
      expect(e).toMatchObject({ stored: 'false', existingSubmission: kept[0]?.submission });
    }
  });
});
