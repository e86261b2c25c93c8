// The endpoint declarations are the one ledger contract: the client sends through every one of them, the
// sandbox serves every one of them and nothing else (besides its own admin and health routes), and each one's
// path, method and schemas match the 3.5 spec (spec-generated requests and responses parse).

import { type Endpoint, endpoints, LedgerClient } from '@quill/canton/ledger';
import { ledgerSpec, specStrings } from '@quill/canton/testing/openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { type Sandbox, startSandbox } from '../src/index.ts';

/**
 * Requests are checked with every field present: the participant's decoder requires a few fields the spec lists as
 * optional (reference ledger-json-api.md §1.6), and the declarations follow the decoder.
 */
const MODES = { request: ['full'], response: ['minimal', 'full'] } as const;

const declared = Object.entries(endpoints) as [string, Endpoint][];

/** A client whose every request is recorded instead of sent. */
class RecordingClient extends LedgerClient {
  readonly sent = new Set<Endpoint>();
  override async send<P extends string, B extends z.ZodType, Q extends z.ZodType, R extends z.ZodType>(
    ep: Endpoint<P, B, Q, R>,
  ): Promise<z.output<R>> {
    this.sent.add(ep as unknown as Endpoint);
    return {} as z.output<R>;
  }
}

describe('endpoint declarations', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ port: 0, scanPort: 0, auth: 'none' });
  });
  afterAll(() => sb.close());

  it('the client has a method for every declaration', async () => {
    const client = new RecordingClient({ baseUrl: 'http://127.0.0.1:9' });
    const methods = Object.getOwnPropertyNames(LedgerClient.prototype).filter(
      (m) => m !== 'constructor' && m !== 'send' && m !== 'stream',
    );
    for (const name of methods) {
      const fn = (client as unknown as Record<string, (...a: unknown[]) => unknown>)[name];
      const out = fn?.call(client, 'u1', { beginExclusive: 0 }, {});
      if (out instanceof Promise) await out.catch(() => undefined);
    }
    const missing = declared.filter(([, ep]) => !client.sent.has(ep)).map(([name]) => name);
    expect(missing).toEqual([]);
  });

  it('the sandbox serves every declaration, and no ledger route without one', () => {
    const key = (method: string, path: string) => `${method.toUpperCase()} ${path}`;
    const wanted = new Set(
      declared.map(([, ep]) =>
        key(
          ep.method,
          ep.path.replace(/\{([^}]+)\}/g, (_m, n) => `:${n.replace(/-/g, '_')}`),
        ),
      ),
    );
    const served = new Set(
      sb.routes
        .filter((r) => r.method !== 'ALL' && r.path.startsWith('/v2/'))
        .map((r) => key(r.method, r.path)),
    );
    expect([...wanted].filter((r) => !served.has(r))).toEqual([]);
    expect([...served].filter((r) => !wanted.has(r))).toEqual([]);
  });

  describe('each declaration matches the 3.5 spec', () => {
    const spec = ledgerSpec();
    for (const [name, ep] of declared) {
      it(`${name}: ${ep.method} ${ep.path}`, () => {
        const method = ep.method.toLowerCase();
        expect(() => spec.payloadComponent(ep.path, method, 'response')).not.toThrow();
        for (const which of ['request', 'response'] as const) {
          const component = spec.payloadComponent(ep.path, method, which);
          const schema = which === 'request' ? ep.body : ep.response;
          if (!component) {
            // No JSON body in the spec: the declaration takes none (GET/DELETE) or answers `{}`.
            if (which === 'request') expect(ep.body.safeParse(undefined).success).toBe(true);
            continue;
          }
          for (const mode of MODES[which]) {
            for (let variant = 0; variant < 4; variant++) {
              const one = spec.sample(component.name, { mode, variant, strings: specStrings });
              const parsed = schema.safeParse(component.array ? [one] : one);
              expect(parsed.error?.issues ?? [], `${which} ${component.name} ${mode} ${variant}`).toEqual([]);
            }
          }
        }
      });
    }
  });
});
