// Properties of the event id decoder and ordering, the signature check and the private- and loopback-address
// matchers (WEBHOOK_ALLOW_PRIVATE_TARGETS=loopback: the demo's default).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compareIds,
  decodeEntry,
  isEventId,
  isEventType,
  isLoopbackAddress,
  isPrivateAddress,
  resolveTarget,
  signatureHeader,
  verifySignature,
} from '../../../src/events/index.ts';

const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });

describe('event ids', () => {
  it('accepts every <ms>-<seq> of two u64 and orders them like the pair', () => {
    fc.assert(
      fc.property(u64, u64, u64, u64, (a, b, c, d) => {
        const x = `${a}-${b}`;
        const y = `${c}-${d}`;
        expect(isEventId(x)).toBe(true);
        const want = a !== c ? (a < c ? -1 : 1) : b !== d ? (b < d ? -1 : 1) : 0;
        expect(compareIds(x, y)).toBe(want);
        expect(compareIds(y, x)).toBe(-want);
      }),
    );
  });
  it('refuses anything else without throwing', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const ok = isEventId(s);
        if (ok) expect(s).toMatch(/^\d+-\d+$/);
      }),
    );
    expect(isEventId(`${2n ** 64n}-0`)).toBe(false);
    expect(isEventId('1-2-3')).toBe(false);
    expect(isEventId('')).toBe(false);
  });
  it('decodes any stream entry without throwing; only known types come out', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 10 }), (fields) => {
        const e = decodeEntry('1-0', fields);
        if (e) expect(isEventType(e.type)).toBe(true);
      }),
    );
  });
});

describe('signatures', () => {
  it('verify with any of the signing secrets, and not with another or after tampering', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.string({ minLength: 1 }),
        fc.string(),
        fc.string({ minLength: 1 }),
        (a, b, body, other) => {
          fc.pre(other !== a && other !== b);
          const t = Math.floor(Date.now() / 1000);
          const header = signatureHeader([a, b], t, body);
          expect(verifySignature(header, body, a)).toBe(true);
          expect(verifySignature(header, body, b)).toBe(true);
          expect(verifySignature(header, body, other)).toBe(false);
          expect(verifySignature(header, `${body}x`, a)).toBe(false);
        },
      ),
    );
  });
  it('refuses stale timestamps and garbage headers without throwing', () => {
    const old = Math.floor(Date.now() / 1000) - 3600;
    expect(verifySignature(signatureHeader(['s'], old, 'b'), 'b', 's')).toBe(false);
    fc.assert(
      fc.property(fc.string(), (h) => {
        expect(typeof verifySignature(h, 'b', 's')).toBe('boolean');
      }),
    );
  });
});

describe('private addresses', () => {
  it('knows loopback, private, link-local and mapped forms; public ones pass', () => {
    for (const ip of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '0.0.0.0',
      '100.64.0.1',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      'not-an-ip',
    ])
      expect(isPrivateAddress(ip), ip).toBe(true);
    for (const ip of ['8.8.8.8', '203.0.113.10', '2001:4860:4860::8888', '::ffff:8.8.8.8'])
      expect(isPrivateAddress(ip), ip).toBe(false);
  });
  it('never throws, and every 10/8 and 127/8 address is private', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(typeof isPrivateAddress(s)).toBe('boolean');
      }),
    );
    fc.assert(
      fc.property(fc.constantFrom(10, 127), fc.nat(255), fc.nat(255), fc.nat(255), (a, b, c, d) => {
        expect(isPrivateAddress(`${a}.${b}.${c}.${d}`)).toBe(true);
      }),
    );
  });
});

describe('loopback targets (the demo)', () => {
  it('matches 127/8 and ::1 only', () => {
    for (const ip of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1'])
      expect(isLoopbackAddress(ip), ip).toBe(true);
    for (const ip of ['10.0.0.1', '192.168.1.1', '::', 'fd00::1', '8.8.8.8', 'not-an-ip'])
      expect(isLoopbackAddress(ip), ip).toBe(false);
  });
  it('allows a loopback target and refuses every other private one under `loopback`', async () => {
    const only = (address: string) => async () => [
      { address, family: address.includes(':') ? 6 : 4 } as const,
    ];
    const on = (address: string, allow: boolean | 'loopback') =>
      resolveTarget('http://receiver.test:9000/hook', allow, only(address));
    expect(typeof (await on('127.0.0.1', 'loopback'))).toBe('object');
    expect(typeof (await on('::1', 'loopback'))).toBe('object');
    expect(await on('127.0.0.1', false)).toBe('PRIVATE_TARGET');
    for (const ip of ['10.0.0.1', '192.168.1.1', '169.254.169.254', 'fd00::1'])
      expect(await on(ip, 'loopback'), ip).toBe('PRIVATE_TARGET');
    expect(typeof (await on('192.168.1.1', true))).toBe('object');
    // A name with a loopback and a private answer is refused whole.
    const both = async () => [
      { address: '127.0.0.1', family: 4 as const },
      { address: '10.0.0.1', family: 4 as const },
    ];
    expect(await resolveTarget('http://mixed.test/', 'loopback', both)).toBe('PRIVATE_TARGET');
  });
});

describe('events configuration', () => {
  it('reads the defaults and refuses bad values with one line each', async () => {
    const { loadConfig, ConfigError } = await import('../../../src/config/index.ts');
    const c = loadConfig({}, ['events']);
    expect(c.events).toEqual({ retentionMs: 168 * 3_600_000, retentionMax: 1_000_000, heartbeatMs: 15_000 });
    expect(c.webhooks.allowPrivateTargets).toBe(false);
    expect(c.webhooks.timeoutMs).toBe(10_000);
    expect(
      loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }, ['events']).webhooks.allowPrivateTargets,
    ).toBe(true);
    expect(
      loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'loopback' }, ['events']).webhooks.allowPrivateTargets,
    ).toBe('loopback');
    for (const [k, v] of [
      ['WEBHOOK_ALLOW_PRIVATE_TARGETS', 'yes'],
      ['EVENTS_RETENTION_HOURS', '-1'],
      ['EVENTS_HEARTBEAT_SECONDS', '0'],
      ['WEBHOOK_TIMEOUT_MS', 'abc'],
      ['WEBHOOK_RETRY_BASE_MS', '5000000'],
    ]) {
      expect(() => loadConfig({ [k as string]: v }, ['events']), `${k}=${v}`).toThrow(ConfigError);
    }
  });
});
