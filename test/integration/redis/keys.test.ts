// Every Redis key is named by src/redis/keys.ts: each pattern carries the deployment prefix (on a Cluster, its hash
// tag, so a script's keys share one slot), and after a whole wallet has run — submissions committed and held for
// approval, a policy, a webhook delivered, the relay, the watcher, the leader's sweep, a disabled key, the rate
// limit, a console sign-in — every key in Redis is one of the registry's patterns.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LedgerClient } from '@quill/canton/ledger';
import { type Sandbox, startSandbox } from '@quill/sandbox';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createVerifier, issueToken } from '../../../src/auth/index.ts';
import { mintLink, SessionStore } from '../../../src/console/index.tsx';
import { redeemLink } from '../../../src/console/links.ts';
import { PartyRegistry } from '../../../src/parties/index.ts';
import { redisKeys } from '../../../src/redis/index.ts';
import { partyServices } from '../../../src/server/adapters.ts';
import { type RunningWallet, startWallet } from '../../../src/server/wallet.ts';
import { Keyring, KeyStore, verifyingSigner } from '../../../src/signing/index.ts';
import { ledgerPort } from '../../../src/submissions/index.ts';
import { tempDir } from '../../support/tmp.ts';
import { noteCommand, prepareOn, SECRET, walletConfig } from '../../support/wallet.ts';

/** Redis Cluster's slot of a key: CRC16 (XMODEM) of its hash tag, or of the whole key without one. */
function slot(key: string): number {
  const open = key.indexOf('{');
  const close = open >= 0 ? key.indexOf('}', open + 1) : -1;
  const hashed = close > open + 1 ? key.slice(open + 1, close) : key;
  let crc = 0;
  for (const byte of Buffer.from(hashed)) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}

const HOLE = '\u0000';
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Every key the registry can build, as a pattern: a name, or a builder with its arguments as wildcards (a builder
 * that encodes its arguments, base64url, gets a wildcard for each segment they leave empty).
 */
function patterns(prefix: string): { name: string; re: RegExp }[] {
  const keys = redisKeys(prefix);
  return Object.entries(keys).flatMap(([name, v]) => {
    if (name === 'prefix') return [];
    // BullMQ names its own keys under the queues' prefix.
    const tail = name === 'bull' ? ':.+' : '';
    if (typeof v === 'string') return [{ name, re: new RegExp(`^${escapeRe(v)}${tail}$`) }];
    const build = v as (...a: string[]) => string;
    const holes = build(HOLE, HOLE);
    const body = holes.includes(HOLE)
      ? escapeRe(holes).split(HOLE).join('.*')
      : escapeRe(keys.prefix) +
        build('', '')
          .slice(keys.prefix.length)
          .split(':')
          .map((part) => (part === '' ? '[^:]*' : escapeRe(part)))
          .join(':');
    return [{ name, re: new RegExp(`^${body}${tail}$`) }];
  });
}

describe('the key registry', () => {
  it('puts every key under the prefix; a Cluster prefix (hash tag) puts them all in one slot', () => {
    for (const prefix of ['quill', '{quill}', 'q.a-1']) {
      const p = redisKeys(prefix).prefix;
      for (const [name, v] of Object.entries(redisKeys(prefix))) {
        const key = typeof v === 'function' ? (v as (...a: string[]) => string)('a:b', '{x}') : v;
        expect(key.startsWith(p), `${prefix} ${name}`).toBe(true);
        if (prefix.startsWith('{')) expect(slot(key), `${prefix} ${name}`).toBe(slot('{quill}'));
      }
    }
    // A caller-supplied value never splits an idempotency key or a rate-limit key into another shape.
    const k = redisKeys('quill');
    expect(k.idempotency('a:b', 'c')).not.toBe(k.idempotency('a', 'b:c'));
    expect(k.acceptRate('a:b', 'c')).not.toBe(k.acceptRate('a', 'b:c'));
  });
});

describe('the keys a running wallet writes', () => {
  let sandbox: Sandbox;
  let wallet: RunningWallet;
  let redis: Redis;
  let hooks: ReturnType<typeof createServer>;
  let delivered = 0;
  const tag = `keys-${randomBytes(3).toString('hex')}`;
  // What REDIS_PREFIX becomes on a Cluster (src/config): a hash tag.
  const prefix = `{${tag}}`;

  beforeAll(async () => {
    redis = new Redis(inject('redisUrl'));
    hooks = createServer((_req, res) => {
      delivered++;
      res.end('ok');
    });
    await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', () => r()));
    sandbox = await startSandbox({ port: 0, scanPort: 0, auth: 'none' });
    const config = {
      ...walletConfig(inject('redisUrl'), {
        REDIS_PREFIX: tag,
        PAYLOAD_RETENTION_HOURS: '0',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WATCHER_IDLE_TIMEOUT_MS: '200',
      }),
      redisPrefix: prefix,
    };
    const dir = tempDir('quill-keys-');
    const client = new LedgerClient({ baseUrl: sandbox.url, timeoutMs: 5000 });
    const keys = new Keyring([new KeyStore({ dir, passphrase: 'keys test', scrypt: { N: 1024 } })]);
    const signer = verifyingSigner(keys);
    const registry = new PartyRegistry({ dir });
    wallet = await startWallet({
      config,
      role: 'all',
      ledger: ledgerPort(client),
      auth: createVerifier(config.auth),
      keys,
      signer,
      parties: partyServices({ registry, ledger: client, signer, keys }),
      watch: { ledger: client, parties: async () => (await registry.list()).map((p) => p.partyId) },
      worker: { sweepEveryMs: 200, webhookSweepEveryMs: 200 },
    });
  });
  afterAll(async () => {
    await wallet?.close();
    await sandbox?.close();
    hooks?.close();
    redis?.disconnect();
  });

  it('are all the registry’s, under the deployment’s hash tag', { timeout: 60_000 }, async () => {
    const admin = await issueToken({ secret: SECRET, role: 'admin', ttlSeconds: 600, subject: 'keys' });
    const call = async (
      method: string,
      path: string,
      body?: unknown,
      headers: Record<string, string> = {},
    ) => {
      const res = await fetch(`${wallet.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json', ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    };
    const hookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hook`;
    expect((await call('POST', '/wallet/v1/webhooks', { url: hookUrl })).status).toBe(201);
    const key = (await call('POST', '/wallet/v1/keys', { algorithm: 'ed25519' })).json.fingerprint as string;
    const party = (await call('POST', '/wallet/v1/parties', { keyFingerprint: key, partyHint: 'keys' })).json
      .partyId as string;
    const client = new LedgerClient({ baseUrl: sandbox.url });
    const committed = await call(
      'POST',
      '/wallet/v1/submissions?wait=20',
      await prepareOn(client, party, noteCommand(party)),
      { 'idempotency-key': 'keys-test' },
    );
    expect(committed.json.status).toBe('committed');
    // A policy that holds every transaction for approval: one more submission waits unsigned.
    const policy = { rules: [{ name: 'hold', match: {}, action: 'approve', quorum: 1 }] };
    expect((await call('PUT', '/wallet/v1/policy', policy)).status).toBe(200);
    const held = await call(
      'POST',
      '/wallet/v1/submissions',
      await prepareOn(client, party, noteCommand(party)),
    );
    expect(held.json.status).toBe('awaiting_approval');
    expect((await call('POST', `/wallet/v1/keys/${key}/disable`, {})).status).toBe(200);
    // A console sign-in: the used link and the session.
    const principal = await redeemLink(
      SECRET,
      await mintLink(SECRET, { role: 'read', ttlSeconds: 60 }),
      wallet.store.redis,
      prefix,
    );
    await new SessionStore(wallet.store.redis, prefix, { idleMs: 60_000, absoluteMs: 60_000 }).create(
      principal,
      'link',
    );
    // The worker's side has run: relay, webhook delivery, watcher, the leader's retention sweep.
    const k = redisKeys(prefix);
    for (const deadline = Date.now() + 30_000; ; ) {
      const ready =
        delivered > 0 &&
        (await redis.exists(k.relayCursor, k.watchCheckpoint, k.retentionCursor, k.leaderLease)) === 4;
      if (ready) break;
      if (Date.now() > deadline) throw new Error('the worker side did not run');
      await new Promise((r) => setTimeout(r, 100));
    }

    const known = patterns(prefix);
    const seen = new Set<string>();
    const stray: string[] = [];
    let cursor = '0';
    do {
      const [next, page] = await redis.scan(cursor, 'MATCH', `${escapeRe(prefix)}*`, 'COUNT', 1000);
      cursor = next;
      for (const key of page) {
        expect(slot(key), key).toBe(slot(prefix));
        const hit = known.find((p) => p.re.test(key));
        if (hit) seen.add(hit.name);
        else stray.push(key);
      }
    } while (cursor !== '0');
    expect(stray.join(' '), 'keys built outside src/redis/keys.ts').toBe('');
    // The flow wrote the keys of every store, so a store that bypassed the registry would have shown up above.
    for (const name of [
      'record',
      'commandIndex',
      'updateIndex',
      'idempotency',
      'outbox',
      'audit',
      'auditHead',
      'policyCurrent',
      'events',
      'relayCursor',
      'webhooks',
      'webhookCursor',
      'webhookDeliveries',
      'watchCheckpoint',
      'historyOfParty',
      'leaderLease',
      'watcherLease',
      'retentionCursor',
      'disabledKeys',
      'acceptRate',
      'consoleSession',
      'consoleLink',
      'bull',
    ])
      expect(seen, name).toContain(name);
  });
});
