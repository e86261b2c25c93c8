// The key store's health for /metrics. /readyz counts key files that fail to open but never fails for them (one
// damaged key must not stop the others), so nothing would page for a key that can no longer sign: these gauges do.
import { Gauge, type Registry } from 'prom-client';
import type { KeySurvey } from './keys.ts';

export function keyStoreMetrics(registry: Registry, keys: { survey(): Promise<KeySurvey> }): void {
  // One survey per scrape, shared by both gauges (the key files are unlocked once and then re-read only when
  // they change, as for /readyz).
  let pending: Promise<KeySurvey | undefined> | undefined;
  const survey = () => {
    pending ??= keys
      .survey()
      .catch(() => undefined)
      .finally(() => {
        setTimeout(() => {
          pending = undefined;
        }, 1000).unref();
      });
    return pending;
  };
  new Gauge({
    name: 'quill_keystore_readable',
    help: '1 when this process could survey its key store (KEYS_DIR, PKCS#11 token) at scrape time, else 0',
    registers: [registry],
    async collect() {
      this.set((await survey()) ? 1 : 0);
    },
  });
  new Gauge({
    name: 'quill_keystore_broken_keys',
    help: 'Keys that fail to open (wrong passphrase, tampered, unreadable, missing from the token); named by GET /wallet/v1/keys',
    registers: [registry],
    async collect() {
      const s = await survey();
      if (s) this.set(s.problems.length);
    },
  });
}
