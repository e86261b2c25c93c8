// Every section, composed once: compose() throws at load if two of them write one key or read one variable.
import { apiLimits } from './api-limits.ts';
import { audit } from './audit.ts';
import { auth } from './auth.ts';
import { client } from './client.ts';
import { commit } from './commit.ts';
import { operatorConsole } from './console.ts';
import { events } from './events.ts';
import { inspect } from './inspect.ts';
import { intents } from './intents.ts';
import { keys } from './keys.ts';
import { ledger } from './ledger.ts';
import { log } from './log.ts';
import { policy } from './policy.ts';
import { queue } from './queue.ts';
import { redis } from './redis.ts';
import { retention } from './retention.ts';
import { sandbox } from './sandbox.ts';
import { scan } from './scan.ts';
import { compose } from './section.ts';
import { server } from './server.ts';
import { topology } from './topology.ts';
import { watcher } from './watcher.ts';

/** Every section by the name commands load it with, in the order of the configuration reference. */
export const SECTIONS = compose({
  server,
  redis,
  ledger,
  topology,
  scan,
  keys,
  auth,
  audit,
  console: operatorConsole,
  sandbox,
  queue,
  commit,
  'api-limits': apiLimits,
  inspect,
  retention,
  policy,
  intents,
  log,
  client,
  events,
  watcher,
});
export type SectionName = keyof typeof SECTIONS;
/** What `quill serve` reads: every section but the API client's. */
export const WALLET_SECTIONS = [
  'server',
  'redis',
  'ledger',
  'topology',
  'scan',
  'keys',
  'auth',
  'audit',
  'console',
  'sandbox',
  'queue',
  'commit',
  'api-limits',
  'inspect',
  'retention',
  'policy',
  'intents',
  'log',
  'events',
  'watcher',
] as const satisfies readonly SectionName[];
