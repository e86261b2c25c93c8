// Whether the ledger accepts the wallet's credentials, as its answers tell: a 401 (after the transport refreshed
// a provider token once) or a 403 is remembered with its code until a later call shows it healed. /readyz reports
// it (`ledgerAuth`), the console's overview shows it, and /metrics counts the refusals and flags the current one.
// The participant redacts these answers (code "NA"), so the code here is the wallet's own.
import { LedgerError } from '@quill/canton/ledger';
import { Counter, Gauge } from 'prom-client';
import type { Log } from '../log.ts';
import type { Registry } from '../metrics.ts';
import type { LedgerPort } from '../submissions/index.ts';

export type LedgerAuthCode = 'LEDGER_UNAUTHENTICATED' | 'LEDGER_PERMISSION_DENIED';

export interface LedgerAuthState {
  ok: boolean;
  code?: LedgerAuthCode;
  /** When the current refusal was first seen. */
  since?: string;
  /** What to check, in one line (never a token). */
  message?: string;
}

const CODES: LedgerAuthCode[] = ['LEDGER_UNAUTHENTICATED', 'LEDGER_PERMISSION_DENIED'];

const MESSAGES: Record<LedgerAuthCode, string> = {
  LEDGER_UNAUTHENTICATED:
    'the ledger refuses the wallet’s token (401): check LEDGER_TOKEN, LEDGER_TOKEN_FILE or LEDGER_OAUTH_*',
  LEDGER_PERMISSION_DENIED:
    'the ledger denies the wallet’s user (403): a token may only execute as its own user (LEDGER_USER_ID), ' +
    'which needs CanActAs or CanExecuteAs for the party',
};

export function authCodeOf(err: unknown): LedgerAuthCode | undefined {
  if (!(err instanceof LedgerError)) return undefined;
  if (err.status === 401) return 'LEDGER_UNAUTHENTICATED';
  if (err.status === 403) return 'LEDGER_PERMISSION_DENIED';
  return undefined;
}

export class LedgerAuthHealth {
  private current?: { code: LedgerAuthCode; since: string; what: string };
  private readonly refusals: Counter<'code'>;

  constructor(
    registry: Registry,
    private readonly log: Log,
  ) {
    this.refusals = new Counter({
      name: 'quill_ledger_auth_refusals_total',
      help: 'Ledger calls refused for the wallet’s credentials (401 after a token refresh, or 403), by code',
      labelNames: ['code'],
      registers: [registry],
    });
    const health = this;
    new Gauge({
      name: 'quill_ledger_auth_failing',
      help: '1 while the ledger’s last word on the wallet’s credentials was this refusal, else 0',
      labelNames: ['code'],
      registers: [registry],
      collect() {
        for (const code of CODES) this.set({ code }, health.current?.code === code ? 1 : 0);
      },
    });
  }

  state(): LedgerAuthState {
    const c = this.current;
    return c
      ? { ok: false, code: c.code, since: c.since, message: `${MESSAGES[c.code]} (${c.what})` }
      : { ok: true };
  }

  refused(code: LedgerAuthCode, what: string): void {
    this.refusals.inc({ code });
    if (this.current?.code === code) return;
    this.current = { code, since: new Date().toISOString(), what };
    this.log('error', `${code}: ${MESSAGES[code]}`, { call: what });
  }

  /**
   * A call succeeded. Any success shows the token is accepted again; a permission refusal is over only when an
   * execution (what was refused) succeeds.
   */
  succeeded(execution: boolean): void {
    const c = this.current;
    if (!c || (c.code === 'LEDGER_PERMISSION_DENIED' && !execution)) return;
    this.current = undefined;
    this.log('info', `${c.code} is over: the ledger accepts the wallet’s credentials again`);
  }
}

/**
 * `port` with every answer reported to `health`: each method, those added to the port later included (a Proxy,
 * so none is dropped); `transactions` is an async iterable, reported when it ends.
 */
export function watchLedgerAuth(port: LedgerPort, health: LedgerAuthHealth): LedgerPort {
  const failed = (what: string, err: unknown) => {
    const code = authCodeOf(err);
    if (code) health.refused(code, what);
  };
  async function* transactions(party: string, beginExclusive: number, endInclusive: number) {
    try {
      yield* port.transactions(party, beginExclusive, endInclusive);
      health.succeeded(false);
    } catch (err) {
      failed('updates', err);
      throw err;
    }
  }
  return new Proxy(port, {
    get(target, prop, receiver) {
      if (prop === 'transactions') return transactions;
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      const name = String(prop);
      return async (...args: unknown[]) => {
        try {
          const out = await value.apply(target, args);
          health.succeeded(name === 'execute');
          return out;
        } catch (err) {
          failed(name, err);
          throw err;
        }
      };
    },
  });
}
