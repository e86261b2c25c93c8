// The compose files (issue 13, item 7) hold together without a Docker engine: each parses, its anchors resolve, every
// Quill service's environment (with ${VAR:-default} filled in, and a value for each ${VAR:?required}) loads as a valid
// configuration, the roles and counts are as documented, and every Redis node runs append-only.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../../src/config/index.ts';

interface Service {
  command?: string[] | string;
  build?: string | { context: string; dockerfile?: string };
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  image?: string;
}

const REQUIRED: Record<string, string> = {
  KEYSTORE_PASSPHRASE: 'a passphrase for the compose test',
  AUTH_JWT_SECRET: 'compose-secret-0123456789-abcdefghijklmnopqrstuvwxyz',
  LEDGER_URL: 'http://ledger:7575',
};

/** Compose's interpolation: ${VAR:-default} takes the default, ${VAR:?message} a test value, ${VAR} empty. */
function interpolate(v: string): string {
  return v.replace(/\$\{(\w+)(?::-([^}]*)|:\?[^}]*)?\}/g, (_m, name: string, dflt?: string) =>
    dflt !== undefined ? dflt : (REQUIRED[name] ?? ''),
  );
}

function load(file: string): Record<string, Service> {
  const doc = parse(readFileSync(file, 'utf8'), { merge: true }) as { services: Record<string, Service> };
  return doc.services;
}

const roleOf = (s: Service) => (Array.isArray(s.command) ? s.command.join(' ') : (s.command ?? ''));

describe.each(['docker-compose.yml', 'docker-compose.sentinel.yml'])('%s', (file) => {
  const services = load(file);
  const quill = Object.entries(services).filter(([, s]) => s.build && roleOf(s).startsWith('serve'));

  it('has two API and two worker services', () => {
    expect(quill.filter(([, s]) => roleOf(s) === 'serve --role api')).toHaveLength(2);
    expect(quill.filter(([, s]) => roleOf(s) === 'serve --role worker')).toHaveLength(2);
    const published = quill.flatMap(([, s]) => s.ports ?? []).map((p) => p.split(':')[0]);
    expect(new Set(published).size).toBe(published.length);
  });

  it("loads each Quill service's environment as a valid configuration", () => {
    for (const [name, s] of quill) {
      const env = Object.fromEntries(
        Object.entries(s.environment ?? {}).map(([k, v]) => [k, interpolate(String(v))]),
      );
      expect(() => loadConfig(env), name).not.toThrow();
    }
  });

  it('runs every Redis node append-only', () => {
    const redis = Object.entries(services).filter(
      ([, s]) => s.image?.startsWith('redis') && roleOf(s).includes('redis-server'),
    );
    expect(redis.length).toBeGreaterThan(0);
    for (const [name, s] of redis) expect(roleOf(s), name).toContain('--appendonly yes');
  });
});

describe('docker-compose.yml', () => {
  it("runs the sandbox from the sandbox's own image, never the wallet's (which does not contain it)", () => {
    const sandbox = load('docker-compose.yml').sandbox;
    expect(sandbox?.build).toEqual({ context: '.', dockerfile: 'packages/sandbox/Dockerfile' });
  });
});

describe('docker-compose.sentinel.yml', () => {
  it('has a master, two replicas and three sentinels, and the wallets use them', () => {
    const services = load('docker-compose.sentinel.yml');
    const names = Object.keys(services);
    expect(names.filter((n) => n.startsWith('redis-replica-'))).toHaveLength(2);
    expect(names.filter((n) => n.startsWith('sentinel-'))).toHaveLength(3);
    const config = loadConfig(
      Object.fromEntries(
        Object.entries(services['api-1']?.environment ?? {}).map(([k, v]) => [k, interpolate(String(v))]),
      ),
    );
    expect(config.redisTarget.sentinels).toHaveLength(3);
    expect(config.redisReplicasAck.replicas).toBe(1);
  });
});
