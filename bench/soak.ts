// Soak (issue 32, item 3): an open-loop load at a fixed offered rate for minutes, against separate processes — the
// sandbox (`quill sandbox`), one `quill serve --role api`, one `quill serve --role worker` and a private
// redis-server (REDIS_URL to use an existing one). This process prepares the transactions on the fly against the
// sandbox (a buffer a few seconds ahead of the schedule, refilled concurrently; each creates a note and archives
// the party's oldest beyond about 30 s of them, and the sandbox is pruned every 30 s, so that the ledger's state
// stays flat as a participant's does in steady state), sends submission i at i/R s from
// the start (latency counts from that time: no coordinated omission) with an Idempotency-Key, and follows every
// event through one webhook to a receiver of its own. Each minute it prints offered/accepted/committed, accept
// p50/p99, end-to-end p99, relay and webhook lag, CPU per transaction per process, RSS (and the API's and the
// worker's heap in use), Redis used_memory and its largest keys; at the end totals, memory growth and PASS/FAIL
// lines for the issue's checks.
// The sandbox stands for a participant, which runs on machines of its own: it runs at nice 10 (--sandbox-nice), so
// that it takes the two cores when Quill's processes leave them rather than competing with them.
// Run: npm run bench:soak -- --rate R --minutes M [--retention-minutes K] [--callers C] [--sandbox-nice N] [--json FILE]
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, createServer as httpServer, request } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { LedgerClient } from '@quill/canton/ledger';
import { decodePreparedTransactionBase64 } from '@quill/canton/transaction';
import { Redis } from 'ioredis';
import { issueToken } from '../src/auth/index.ts';
import { ConfigError, loadConfig } from '../src/config/index.ts';
import { verifySignature } from '../src/events/index.ts';
import { onboardExternalParty, PartyRegistry } from '../src/parties/index.ts';
import { redisKeys } from '../src/redis/keys.ts';
import { KeyStore, verifyingSigner } from '../src/signing/index.ts';

// ---- flags ----------------------------------------------------------------------------------------------------

const USAGE =
  'usage: npm run bench:soak -- --rate R --minutes M [--retention-minutes K] [--callers C] [--sandbox-nice N] [--json FILE]\n' +
  '  --rate R               offered submissions per second (required, > 0)\n' +
  '  --minutes M            how long to offer them (required, > 0; decimals allowed, e.g. 0.5)\n' +
  '  --retention-minutes K  sets PAYLOAD_, RECORD_, EVENTS_, WEBHOOK_ and HISTORY_RETENTION_HOURS to K/60\n' +
  '  --callers C            concurrent sockets (default 64)\n' +
  "  --sandbox-nice N       the sandbox's nice level (default 10; 0 = the same priority as Quill)\n" +
  '  --json FILE            also write the per-minute rows and the summary as JSON';

function bad(message: string): never {
  console.error(`bench:soak: ${message}\n${USAGE}`);
  process.exit(2);
}

function parseFlags(argv: string[]) {
  const known = new Set([
    '--rate',
    '--minutes',
    '--retention-minutes',
    '--callers',
    '--sandbox-nice',
    '--json',
  ]);
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = (argv[i] as string).split(/=(.*)/s, 2) as [string, string | undefined];
    if (flag === '--help' || flag === '-h') {
      console.log(USAGE);
      process.exit(0);
    }
    if (!known.has(flag)) bad(`unknown argument ${JSON.stringify(argv[i])}`);
    if (values.has(flag)) bad(`${flag} given twice`);
    const value = inline ?? argv[++i];
    if (value === undefined || (inline === undefined && value.startsWith('--'))) bad(`${flag} needs a value`);
    values.set(flag, value);
  }
  const positive = (flag: string, integer = false): number | undefined => {
    const raw = values.get(flag);
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n)))
      bad(`${flag} must be a positive ${integer ? 'integer' : 'number'}, got ${JSON.stringify(raw)}`);
    return n;
  };
  const rate = positive('--rate') ?? bad('--rate is required');
  const minutes = positive('--minutes') ?? bad('--minutes is required');
  const retentionMinutes = positive('--retention-minutes');
  const callers = positive('--callers', true) ?? 64;
  if (callers > 10_000) bad('--callers must be at most 10000');
  if (rate * minutes * 60 < 1) bad('--rate × --minutes offers less than one submission');
  if (rate > 100_000) bad('--rate must be at most 100000');
  const niceRaw = values.get('--sandbox-nice') ?? '10';
  if (!/^\d{1,2}$/.test(niceRaw) || Number(niceRaw) > 19)
    bad(`--sandbox-nice must be a whole number from 0 to 19, got ${JSON.stringify(niceRaw)}`);
  const sandboxNice = Number(niceRaw);
  return { rate, minutes, retentionMinutes, callers, sandboxNice, json: values.get('--json') };
}

const FLAGS = parseFlags(process.argv.slice(2));
const RATE = FLAGS.rate;
const TOTAL = Math.round(RATE * FLAGS.minutes * 60);
const RUN_MS = FLAGS.minutes * 60_000;
/** Parties the submissions go round: webhook delivery is one ordered chain per (webhook, party). */
const PARTIES = 16; // WEBHOOK_CONCURRENCY's default: every chain can be in flight
/** How far ahead of the schedule prepared transactions are kept. */
const AHEAD_SECONDS = 3;
const BUFFER_TARGET = Math.max(32, Math.ceil(RATE * AHEAD_SECONDS));
/** Concurrent prepares against the sandbox refilling the buffer. */
const PREPARERS = 8;
/**
 * Each party keeps about this many of its notes (about 30 s of them) active: a submission also archives the party's
 * oldest committed note beyond that, so the ledger's active contracts stay flat, as on a participant in steady
 * state, instead of growing with the run.
 */
const ACTIVE_NOTES_PER_PARTY = Math.max(8, Math.ceil((RATE * 30) / PARTIES));
/**
 * The sandbox is pruned every 30 s, as an operator prunes a participant, up to the ledger end of PRUNE_LAG_MS ago
 * (never past the watcher's checkpoint), and runs with a deduplication duration of SANDBOX_MAX_DEDUP_SECONDS (Quill
 * asks for at most that): so its memory stays flat too.
 */
const PRUNE_LAG_MS = 2 * 60_000;
const SANDBOX_MAX_DEDUP_SECONDS = 600;
/** After the last send, the drain ends when every accepted submission's final event arrived, or when none arrived
 * for DRAIN_IDLE_MS (a backlog still moving is waited for, up to DRAIN_MAX_MS). */
const DRAIN_IDLE_MS = 60_000;
const DRAIN_MAX_MS = 30 * 60_000;
const RETENTION_VARS = [
  'PAYLOAD_RETENTION_HOURS',
  'RECORD_RETENTION_HOURS',
  'EVENTS_RETENTION_HOURS',
  'WEBHOOK_RETENTION_HOURS',
  'HISTORY_RETENTION_HOURS',
] as const;

// ---- small helpers --------------------------------------------------------------------------------------------

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * What waking up costs on this machine, measured before the load: the CPU this process spends on one Redis GET,
 * back to back and after WAKE_GAP_MS idle. On a virtual machine the second can be several times the first (460 µs
 * against 60 on 2026-11-29): below saturation Quill's processes pay it at every step, so CPU per transaction at a
 * fixed rate follows it more than it follows the work done.
 */
const WAKE_GAP_MS = 5;
async function roundTripCpu(redis: Redis): Promise<{ busy: number; idle: number; ratio: number }> {
  const cpu = async (n: number, gapMs: number) => {
    const before = process.cpuUsage();
    for (let i = 0; i < n; i++) {
      await redis.get('quill:bench:absent');
      if (gapMs > 0) await sleep(gapMs);
    }
    const used = process.cpuUsage(before);
    return (used.user + used.system) / n;
  };
  await cpu(200, 0); // warm
  const busy = await cpu(2000, 0);
  const idle = await cpu(200, WAKE_GAP_MS);
  return { busy, idle, ratio: idle / busy };
}
/** Wall-clock ms with sub-ms precision, comparable with the children's Date-based times. */
const epochNow = () => performance.timeOrigin + performance.now();

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

function pct(xs: number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = Float64Array.from(xs).sort();
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
}
const ms = (x: number) =>
  Number.isNaN(x) ? '–' : x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(1)} ms`;
const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;

/** A process and its live descendants (`quill serve` may run children), from /proc (Linux). */
function procTree(pid: number | undefined): number[] {
  if (pid === undefined) return [];
  const out = [pid];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`))
      for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/))
        if (child) out.push(...procTree(Number(child)));
  } catch {
    // gone
  }
  return out;
}
/** CPU seconds (user + system) of a process tree so far; 0 where /proc cannot be read. */
function cpuSeconds(pid: number | undefined): number {
  let ticks = 0;
  for (const p of procTree(pid)) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(f[11]) + Number(f[12]); // utime, stime
    } catch {
      // gone
    }
  }
  return ticks / 100; // USER_HZ
}
/** Resident set of a process tree in bytes (VmRSS). */
function rssBytes(pid: number | undefined): number {
  let kb = 0;
  for (const p of procTree(pid)) {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      kb += Number(m?.[1] ?? 0);
    } catch {
      // gone
    }
  }
  return kb * 1024;
}

// ---- HTTP client ----------------------------------------------------------------------------------------------

/** Keep-alive sockets; idle ones dropped at 4 s, before the server's 5 s keep-alive timeout. */
const agent = new Agent({ keepAlive: true, timeout: 4000, maxSockets: FLAGS.callers });
function call(
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method,
      agent,
      headers:
        body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.end(body);
  });
}

// ---- processes ------------------------------------------------------------------------------------------------

const children: ChildProcess[] = [];
process.on('exit', () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});
function child(args: string[], env: NodeJS.ProcessEnv, name: string): ChildProcess {
  const c = spawn(args[0] as string, args.slice(1), { stdio: ['ignore', 'ignore', 'inherit'], env });
  c.once('exit', (code, signal) => {
    if (!stopping) {
      console.error(`bench:soak: ${name} exited (${code ?? signal}) during the run`);
      process.exit(1);
    }
  });
  children.push(c);
  return c;
}
let stopping = false;

async function until(what: string, ms: number, ok: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await ok().catch(() => false)) return;
    await sleep(100);
  }
  throw new Error(`${what} did not come up within ${ms / 1000} s`);
}

/**
 * The retention windows for the children: K/60 hours each with --retention-minutes, else the environment's (unset:
 * the defaults). Returns the env, a line per variable and the longest window (infinite when one keeps forever or is
 * left at its default of days). Windows the configuration refuses end the bench with its message (exit 2).
 */
function retentionEnv(base: NodeJS.ProcessEnv): {
  env: Record<string, string>;
  lines: string[];
  windowMs: number;
} {
  const env: Record<string, string> = {};
  const lines: string[] = [];
  let windowMs = 0;
  for (const name of RETENTION_VARS) {
    const value = FLAGS.retentionMinutes !== undefined ? String(FLAGS.retentionMinutes / 60) : base[name];
    if (value !== undefined) env[name] = value;
    const hours = value === undefined ? Number.NaN : Number(value);
    // 0 keeps forever, but for payloads, which it drops at the next sweep.
    const ms =
      hours > 0 ? hours * 3_600_000 : hours === 0 && name === 'PAYLOAD_RETENTION_HOURS' ? 0 : Infinity;
    windowMs = Math.max(windowMs, ms);
    const from =
      FLAGS.retentionMinutes !== undefined
        ? ''
        : value === undefined
          ? ' (the default)'
          : ' (from the environment)';
    lines.push(`${name}=${value ?? 'default'}${from}`);
  }
  try {
    loadConfig({ ...base, ...env }, ['retention', 'events'] as never);
  } catch (err) {
    if (err instanceof ConfigError) bad(err.message);
    throw err;
  }
  return { env, lines, windowMs };
}

// ---- the run --------------------------------------------------------------------------------------------------

type Prepared = {
  preparedTransaction: string;
  preparedTransactionHash: string;
  hashingSchemeVersion: string;
};
/** A prepared submission and the note it creates: party index and contract id. */
type Item = { p: Prepared; note: { party: number; cid: string } };

type Snapshot = {
  at: number;
  accepted: number;
  finalEvents: number;
  cpu: Record<string, number>;
  rss: Record<string, number>;
  /** The API's and the worker's live heap (`nodejs_heap_size_used_bytes` on their /metrics). */
  heap: Record<string, number>;
  usedMemory: number;
  /** The audit chain's bytes (MEMORY USAGE): kept by design, so the flat check leaves it out and states it. */
  auditBytes: number;
  committed: number;
};

async function main(): Promise<void> {
  const cmdline = `npm run bench:soak -- ${process.argv.slice(2).join(' ')}`;
  let commit = '';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    // not a checkout
  }
  const retention = retentionEnv(process.env);

  // Redis.
  let redisUrl = process.env.REDIS_URL;
  let redisProc: ChildProcess | undefined;
  let redisDir: string | undefined;
  if (!redisUrl) {
    const port = await freePort();
    redisDir = mkdtempSync(join(tmpdir(), 'quill-soak-redis-'));
    redisProc = child(
      ['redis-server', '--port', String(port), '--save', '', '--appendonly', 'no', '--dir', redisDir],
      process.env,
      'redis-server',
    );
    redisUrl = `redis://127.0.0.1:${port}`;
  }
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  redis.on('error', () => {});
  await until('redis', 10_000, async () => (await redis.ping()) === 'PONG');
  let redisPid = redisProc?.pid;
  if (!redisProc) {
    // An existing Redis: its pid only when it runs on this machine.
    const pid = Number(/process_id:(\d+)/.exec(await redis.info('server'))?.[1]);
    redisPid = Number.isInteger(pid) && pid > 0 && rssBytes(pid) > 0 ? pid : undefined;
  }

  // The sandbox.
  const [sbPort, scanPort] = [await freePort(), await freePort()];
  const sandboxProc = child(
    [
      ...(FLAGS.sandboxNice > 0 ? ['nice', '-n', String(FLAGS.sandboxNice)] : []),
      process.execPath,
      'bin/quill.js',
      'sandbox',
      '--port',
      String(sbPort),
      '--scan-port',
      String(scanPort),
      '--no-auth',
      '--max-deduplication-seconds',
      String(SANDBOX_MAX_DEDUP_SECONDS),
    ],
    process.env,
    'quill sandbox',
  );
  const sandboxUrl = `http://127.0.0.1:${sbPort}`;
  await until('quill sandbox', 30_000, async () => (await fetch(`${sandboxUrl}/livez`)).ok);
  const ledger = new LedgerClient({ baseUrl: sandboxUrl, timeoutMs: 30_000 });

  // Parties, onboarded from here into the key directory the API and worker read.
  const keysDir = mkdtempSync(join(tmpdir(), 'quill-soak-keys-'));
  const keys = new KeyStore({ dir: keysDir, passphrase: 'bench', scrypt: { N: 1024 } });
  const registry = new PartyRegistry({ dir: keysDir });
  const signer = verifyingSigner(keys);
  const parties: { partyId: string; synchronizerId: string }[] = [];
  for (let i = 0; i < PARTIES; i++) {
    const key = await keys.generate('ed25519');
    parties.push(
      await onboardExternalParty({
        ledger,
        signer,
        keys,
        registry,
        keyFingerprint: key.fingerprint,
        partyHint: `soak${i}`,
      }),
    );
  }

  // API and worker.
  const secret = `soak-${randomUUID()}-${randomUUID()}`;
  const prefix = `soak-${Date.now()}`;
  const apiPort = await freePort();
  const workerPort = await freePort();
  const childEnv: NodeJS.ProcessEnv = {
    // Defaults an operator's environment may override …
    LOG_LEVEL: 'warn',
    CONSOLE_ENABLED: 'false',
    WORKER_CONCURRENCY: '64',
    DEDUP_MAX_SECONDS: String(SANDBOX_MAX_DEDUP_SECONDS),
    ...process.env,
    ...retention.env,
    // … and what this run needs.
    WEBHOOK_ALLOW_PRIVATE_TARGETS: process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS === 'true' ? 'true' : 'loopback',
    HOST: '127.0.0.1',
    LEDGER_URL: sandboxUrl,
    LEDGER_USER_ID: 'bench',
    REDIS_URL: redisUrl,
    REDIS_PREFIX: prefix,
    AUTH_JWT_SECRET: secret,
    KEYS_DIR: keysDir,
    KEYSTORE_PASSPHRASE: 'bench',
  };
  const apiProc = child(
    [process.execPath, 'bin/quill.js', 'serve', '--role', 'api'],
    { ...childEnv, PORT: String(apiPort) },
    'quill serve --role api',
  );
  const workerProc = child(
    [process.execPath, 'bin/quill.js', 'serve', '--role', 'worker'],
    { ...childEnv, PORT: String(workerPort) },
    'quill serve --role worker',
  );
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  await until('quill serve --role api', 60_000, async () => (await fetch(`${apiUrl}/readyz`)).ok);

  // Tokens live at most AUTH_MAX_TOKEN_TTL (24 h by default): a fresh one every hour.
  let submitToken = await issueToken({ secret, role: 'submit', ttlSeconds: 86_400 });
  setInterval(async () => {
    submitToken = await issueToken({ secret, role: 'submit', ttlSeconds: 86_400 });
  }, 3_600_000).unref();
  const adminToken = await issueToken({ secret, role: 'admin', ttlSeconds: 3600 });

  // ---- the webhook receiver ----
  /** Accepted (202) records not yet seen final by the webhook: id → scheduled time (epoch ms). */
  const pending = new Map<string, number>();
  /** Final events that arrived before their 202 was read: id → [final status time, received time]. */
  const early = new Map<string, [number, number, string]>();
  /** The warm-up's records (not counted), and those of them seen final. */
  const warmupIds = new Set<string>();
  const warmupFinal = new Set<string>();
  /** Final statuses seen through the webhook, counted once per record (a record has one final event). */
  const finals = { committed: 0, rejected: 0, expired: 0 };
  const countFinal = (status: string) => {
    if (status === 'committed' || status === 'rejected' || status === 'expired') finals[status]++;
  };
  let minute = newMinute();
  let whSecret = '';
  let whEvents = 0;
  let whDuplicates = 0;
  let whBadSignatures = 0;
  const seenEvents = new Set<string>();
  const finalSeen = (dueAt: number, finalAt: number, receivedAt: number) => {
    minute.e2eFinal.push(finalAt - dueAt);
    minute.e2eSeen.push(receivedAt - dueAt);
  };
  const receiver = httpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const receivedAt = epochNow();
      const text = Buffer.concat(chunks).toString();
      res.writeHead(204).end();
      if (!verifySignature(String(req.headers['quill-signature']), text, whSecret)) {
        whBadSignatures++;
        return;
      }
      const ev = JSON.parse(text) as {
        eventId: string;
        type: string;
        body: { id?: string; status?: string; updatedAt?: string };
      };
      if (seenEvents.has(ev.eventId)) {
        whDuplicates++;
        return;
      }
      seenEvents.add(ev.eventId);
      if (seenEvents.size > 200_000) seenEvents.clear(); // at least once: repeats come soon after, if at all
      whEvents++;
      const eventAt = Number(ev.eventId.split('-')[0]);
      minute.webhookLag.push(receivedAt - eventAt);
      const final = /^submission\.(committed|rejected|expired)$/.test(ev.type);
      if (!final || !ev.body.id || !ev.body.updatedAt) return;
      const finalAt = Date.parse(ev.body.updatedAt);
      minute.relayLag.push(eventAt - finalAt);
      const id = ev.body.id;
      if (warmupIds.has(id)) {
        warmupFinal.add(id);
        noteFinal(id, ev.body.status ?? '');
        return;
      }
      const due = pending.get(id);
      if (due !== undefined) {
        pending.delete(id);
        countFinal(ev.body.status ?? '');
        noteFinal(id, ev.body.status ?? '');
        finalSeen(due, finalAt, receivedAt);
      } else early.set(id, [finalAt, receivedAt, ev.body.status ?? '']); // its 202 is not read yet
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const whUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/soak`;
  const created = await call(
    'POST',
    `${apiUrl}/wallet/v1/webhooks`,
    { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    JSON.stringify({ url: whUrl, description: 'bench:soak receiver (every event)' }),
  );
  if (created.status !== 201)
    throw new Error(`webhook not created: ${created.status} ${created.text.slice(0, 300)}`);
  whSecret = (JSON.parse(created.text) as { secret: string }).secret;
  await sleep(1000); // the dispatcher takes a new webhook up on its next run

  // ---- prepared transactions, a few seconds ahead ----
  let issued = 0;
  let prepareErrors = 0;
  const buffer: Item[] = [];
  const wakeConsumers: (() => void)[] = [];
  const wakeProducers: (() => void)[] = [];
  const wake = (list: (() => void)[]) => {
    for (const w of list.splice(0)) w();
  };
  let inflight = 0;
  /** Per party, the contract ids of its committed notes not yet up for archiving, oldest first. */
  const committedNotes: string[][] = parties.map(() => []);
  /** The note each accepted submission creates, until its final status. */
  const noteOf = new Map<string, Item['note']>();
  const noteFinal = (id: string, status: string) => {
    const note = noteOf.get(id);
    if (!note) return;
    noteOf.delete(id);
    if (status === 'committed') committedNotes[note.party]?.push(note.cid);
  };
  const NOTE = '#bench:Bench:Note';
  const prepareOne = async (n: number, archive: string | undefined): Promise<Item> => {
    const index = n % PARTIES;
    const party = parties[index] as { partyId: string; synchronizerId: string };
    const create = {
      CreateCommand: { templateId: NOTE, createArguments: { owner: party.partyId, n: String(n) } },
    };
    const p = await ledger.prepare({
      userId: 'bench',
      commandId: randomUUID(),
      actAs: [party.partyId],
      synchronizerId: party.synchronizerId,
      packageIdSelectionPreference: [],
      commands: [
        create,
        ...(archive === undefined
          ? []
          : [
              {
                ExerciseCommand: {
                  templateId: NOTE,
                  contractId: archive,
                  choice: 'Archive',
                  choiceArgument: {},
                },
              },
            ]),
      ],
    } as never);
    const created = decodePreparedTransactionBase64(p.preparedTransaction).transaction?.nodes.find(
      (x) => x.versionedNode.oneofKind === 'v1' && x.versionedNode.v1.nodeType.oneofKind === 'create',
    );
    const node = created?.versionedNode.oneofKind === 'v1' ? created.versionedNode.v1.nodeType : undefined;
    if (node?.oneofKind !== 'create') throw new Error('the prepared transaction creates no note');
    return {
      p: {
        preparedTransaction: p.preparedTransaction,
        preparedTransactionHash: p.preparedTransactionHash,
        hashingSchemeVersion: p.hashingSchemeVersion,
      },
      note: { party: index, cid: node.create.contractId },
    };
  };
  /** Warm-up: a few seconds at the rate (every process's code warm, the webhook taken up), not counted. */
  const WARMUP = Math.max(PARTIES, Math.min(2000, Math.ceil(RATE * 5)));
  for (let k = 0; k < PREPARERS; k++)
    void (async () => {
      while (issued < TOTAL + WARMUP) {
        if (buffer.length + inflight >= BUFFER_TARGET) {
          await new Promise<void>((r) => wakeProducers.push(r));
          continue;
        }
        const n = issued++;
        inflight++;
        const notes = committedNotes[n % PARTIES] as string[];
        // One note out of the party's oldest, once it holds more than its share; a retry goes without it.
        let archive = notes.length > ACTIVE_NOTES_PER_PARTY ? notes.shift() : undefined;
        for (;;) {
          try {
            buffer.push(await prepareOne(n, archive));
            break;
          } catch (err) {
            prepareErrors++;
            if (prepareErrors === 1)
              console.error(`bench:soak: prepare failed (retrying): ${(err as Error).message}`);
            archive = undefined;
            await sleep(100);
          }
        }
        inflight--;
        wake(wakeConsumers);
      }
    })();
  const take = async (): Promise<{ item: Item; waited: boolean }> => {
    let waited = false;
    while (buffer.length === 0) {
      waited = true;
      await new Promise<void>((r) => wakeConsumers.push(r));
    }
    const item = buffer.shift() as Item;
    wake(wakeProducers);
    return { item, waited };
  };

  // ---- submitting ----
  const transportErrors = new Map<string, number>();
  const refused = new Map<string, number>();
  let retries = 0;
  const submit = async ({ p, note }: Item): Promise<string | undefined> => {
    const headers = {
      authorization: `Bearer ${submitToken}`,
      'content-type': 'application/json',
      'idempotency-key': randomUUID(),
    };
    const body = JSON.stringify(p);
    for (let attempt = 1; ; attempt++) {
      try {
        const { status, text } = await call('POST', `${apiUrl}/wallet/v1/submissions`, headers, body);
        if (status === 202 || status === 200) {
          const { id } = JSON.parse(text) as { id: string };
          noteOf.set(id, note);
          return id;
        }
        const code = (() => {
          try {
            return (JSON.parse(text) as { error?: { code?: string } }).error?.code ?? `HTTP ${status}`;
          } catch {
            return `HTTP ${status}`;
          }
        })();
        refused.set(code, (refused.get(code) ?? 0) + 1);
        return undefined;
      } catch (err) {
        const code = (err as { code?: string }).code ?? (err as Error).message;
        if ((code === 'ECONNRESET' || code === 'EPIPE') && attempt < 5) {
          retries++;
          continue;
        }
        transportErrors.set(code, (transportErrors.get(code) ?? 0) + 1);
        return undefined;
      }
    }
  };

  // Warm-up: WARMUP submissions paced at the rate, each seen final through the webhook (the dispatcher has taken
  // the webhook up, every process's code is warm). Not counted in the run.
  const keyset = redisKeys(prefix);
  /** The store's own counts (a cross-check: record retention may remove records from them). */
  const storeCount = async () => {
    const pipe = redis.pipeline();
    for (const s of ['committed', 'rejected', 'expired']) pipe.zcard(keyset.statusIndex(s));
    const r = (await pipe.exec()) ?? [];
    const [c, rj, ex] = r.map(([, n]) => Number(n));
    return { committed: c ?? 0, rejected: rj ?? 0, expired: ex ?? 0 };
  };
  {
    const w0 = performance.now();
    await Promise.all(
      Array.from({ length: WARMUP }, async (_, i) => {
        await sleep(w0 + (i * 1000) / RATE - performance.now());
        const id = await submit((await take()).item);
        if (id === undefined) return;
        warmupIds.add(id);
        const e = early.get(id);
        if (e) {
          early.delete(id);
          warmupFinal.add(id);
          noteFinal(id, e[2]);
        }
      }),
    );
    if (warmupIds.size < WARMUP)
      throw new Error(`warm-up refused: ${JSON.stringify([...refused, ...transportErrors])}`);
    await until('the warm-up submissions through the webhook', 120_000, async () =>
      [...warmupIds].every((id) => warmupFinal.has(id)),
    );
    refused.clear();
    retries = 0;
  }
  const base = await storeCount();
  while (buffer.length < BUFFER_TARGET && issued < TOTAL + WARMUP) await sleep(20);

  // ---- measuring ----
  const pids = {
    api: apiProc.pid,
    worker: workerProc.pid,
    redis: redisPid,
    sandbox: sandboxProc.pid,
  };
  const readCpu = (): Record<string, number> => {
    const u = process.cpuUsage();
    return {
      api: cpuSeconds(pids.api),
      worker: cpuSeconds(pids.worker),
      redis: cpuSeconds(pids.redis),
      sandbox: cpuSeconds(pids.sandbox),
      bench: (u.user + u.system) / 1e6,
    };
  };
  const readRss = (): Record<string, number> => ({
    api: rssBytes(pids.api),
    worker: rssBytes(pids.worker),
    redis: rssBytes(pids.redis),
    sandbox: rssBytes(pids.sandbox),
    bench: process.memoryUsage.rss(),
  });
  const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1] ?? 0);
  const auditBytes = async () => Number((await redis.memory('USAGE', keyset.audit)) ?? 0);
  /** CPU the per-minute key scan cost (Redis and this process): left out of the CPU per transaction. */
  const scanCpu = { redis: 0, bench: 0 };
  // Every key of the run's prefix, by one SCAN (1000 a step). The keys of one record each (the record hash
  // `sub:<id>`, its command/update/idempotency index strings, BullMQ's job keys `bull:<queue>:<n>…`) are counted
  // and only the first PER_RECORD_SAMPLE sized, so the scan stays bounded as records pile up; every other key (the
  // aggregates: streams, indexes, logs, chains) is sized with MEMORY USAGE.
  const PER_RECORD = /^(sub:|idx:cmd:|idx:update:|idem:|bull:[^:]+:\d+(:|$))/;
  const PER_RECORD_SAMPLE = 200;
  const largestKeys = async () => {
    const before = readCpu();
    const started = performance.now();
    const top: [string, number][] = [];
    const perRecord = { count: 0, sampled: [] as string[] };
    let count = 0;
    for (let cursor = '0'; ; ) {
      const [next, batch] = await redis.scan(cursor, 'MATCH', `${keyset.prefix}*`, 'COUNT', 1000);
      cursor = next;
      count += batch.length;
      const aggregates: string[] = [];
      for (const k of batch) {
        if (!PER_RECORD.test(k.slice(keyset.prefix.length))) aggregates.push(k);
        else if (perRecord.count++ < PER_RECORD_SAMPLE) perRecord.sampled.push(k);
      }
      if (aggregates.length > 0) await sizeKeys(aggregates, top);
      if (cursor === '0') break;
    }
    const sample: [string, number][] = [];
    if (perRecord.sampled.length > 0) await sizeKeys(perRecord.sampled, sample, perRecord.sampled.length);
    const perRecordBytes = sample.length ? sample.reduce((a, [, b]) => a + b, 0) / sample.length : 0;
    const after = readCpu();
    scanCpu.redis += (after.redis ?? 0) - (before.redis ?? 0);
    scanCpu.bench += (after.bench ?? 0) - (before.bench ?? 0);
    return {
      top,
      count,
      perRecord: { count: perRecord.count, avgBytes: perRecordBytes },
      scanMs: performance.now() - started,
    };
  };
  const sizeKeys = async (batch: string[], top: [string, number][], keep = 5) => {
    const pipe = redis.pipeline();
    for (const k of batch) pipe.memory('USAGE', k);
    const sizes = (await pipe.exec()) ?? [];
    batch.forEach((k, i) => {
      const bytes = Number(sizes[i]?.[1] ?? 0);
      if (top.length < keep || bytes > (top[keep - 1] as [string, number])[1]) {
        top.push([k.startsWith(keyset.prefix) ? k.slice(keyset.prefix.length) : k, bytes]);
        top.sort((a, b) => b[1] - a[1]);
        top.length = Math.min(top.length, keep);
      }
    });
  };
  /** The API's and the worker's /metrics, each read once per snapshot. */
  const scrape = async () => {
    const text = async (port: number) => (await call('GET', `http://127.0.0.1:${port}/metrics`, {})).text;
    return { api: await text(apiPort), worker: await text(workerPort) };
  };
  /** The heap a Quill process reports in use: tells a collector's sawtooth in RSS from growth. */
  const heapUsed = (text: string) => Number(/^nodejs_heap_size_used_bytes (\S+)$/m.exec(text)?.[1] ?? 0);
  const readHeap = (m: { api: string; worker: string }) => ({
    api: heapUsed(m.api),
    worker: heapUsed(m.worker),
  });
  /** The worker's own counters of final statuses: they only grow, whatever retention removes. */
  const workerFinals = (text: string) => {
    const sum = (name: string) =>
      [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+]+)$`, 'gm'))].reduce(
        (a, m) => a + Number(m[1]),
        0,
      );
    return {
      committed: sum('quill_submissions_committed_total'),
      rejected: sum('quill_submissions_rejected_total'),
      expired: sum('quill_submissions_expired_total'),
    };
  };
  const firstScrape = await scrape();
  const workerBase = workerFinals(firstScrape.worker);

  const names = ['api', 'worker', 'redis', 'sandbox', 'bench'] as const;
  const machine = `${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown'}), ${mb(totalmem())} memory, Node ${process.version}, ${process.platform}`;
  console.log(`bench:soak — ${new Date().toISOString()}${commit ? `, commit ${commit}` : ''}`);
  console.log(`  command: ${cmdline}`);
  console.log(`  machine: ${machine}`);
  const roundTrip = await roundTripCpu(redis);
  console.log(
    `  a Redis round trip costs this process ${roundTrip.busy.toFixed(0)} µs of CPU back to back, ${roundTrip.idle.toFixed(0)} µs ` +
      `after ${WAKE_GAP_MS} ms idle: below saturation every step pays the second (${roundTrip.ratio.toFixed(1)}×)`,
  );
  console.log(
    `  rate ${RATE}/s for ${FLAGS.minutes} min (${TOTAL} submissions), ${FLAGS.callers} callers, ${PARTIES} parties, ` +
      `prepared buffer ${BUFFER_TARGET} (${AHEAD_SECONDS} s ahead, ${PREPARERS} preparers)`,
  );
  console.log(
    `  processes: sandbox ${pids.sandbox} (nice ${FLAGS.sandboxNice}), api ${pids.api}, worker ${pids.worker}, redis ${pids.redis ?? '(not local)'}${redisProc ? ' (private)' : ` (REDIS_URL ${redisUrl})`}`,
  );
  console.log(
    `  retention${FLAGS.retentionMinutes !== undefined ? ` (--retention-minutes ${FLAGS.retentionMinutes})` : ''}:`,
  );
  for (const l of retention.lines) console.log(`    ${l}`);

  // ---- schedule ----
  const t0 = performance.now() + 20;
  /**
   * RSS every 5 s. A garbage-collected heap swings (the API between 190 and 290 MB from minute to minute), so growth
   * compares two equal windows, not two instants: their medians, the level a leak would raise, and, printed beside
   * them, their peaks, which one sample taken at the top of a collection cycle decides (the API's peak rose 3.6% in
   * one hour at 200/s and 21% in the next, its median RSS and its heap's troughs flat in both).
   */
  const rssSamples: { at: number; rss: Record<string, number> }[] = [];
  const sampler = setInterval(() => rssSamples.push({ at: performance.now() - t0, rss: readRss() }), 5_000);
  const rssIn = (n: string, from: number, to: number) =>
    rssSamples
      .filter((x) => x.at >= from && x.at <= to)
      .map((x) => x.rss[n] ?? 0)
      .sort((a, b) => a - b);
  const rssPeak = (n: string, from: number, to: number) => Math.max(0, ...rssIn(n, from, to));
  const rssMedian = (n: string, from: number, to: number) => {
    const xs = rssIn(n, from, to);
    return xs.length > 0 ? (xs[(xs.length - 1) >> 1] as number) : 0;
  };
  // The sandbox pruned every 30 s, PRUNE_LAG_MS behind its ledger end and never past the watcher's checkpoint.
  const ends: { at: number; end: number }[] = [];
  const pruning = { to: 0, runs: 0, errors: 0 };
  const pruner = setInterval(async () => {
    try {
      const now = performance.now();
      ends.push({ at: now, end: await ledger.ledgerEndOffset() });
      let target = 0;
      while ((ends[0]?.at ?? now) <= now - PRUNE_LAG_MS) target = (ends.shift() as { end: number }).end;
      target = Math.min(target, Number((await redis.get(keyset.watchCheckpoint)) ?? 0));
      if (target <= pruning.to) return;
      const r = await fetch(`${sandboxUrl}/admin/prune`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ offset: target }),
      });
      if (!r.ok) throw new Error(`prune: HTTP ${r.status} ${(await r.text()).slice(0, 200)}`);
      pruning.to = target;
      pruning.runs++;
    } catch (err) {
      if (pruning.errors++ === 0)
        console.error(`bench:soak: pruning the sandbox failed: ${(err as Error).message}`);
    }
  }, 30_000);
  const t0Epoch = performance.timeOrigin + t0;
  const dueAt = (i: number) => t0 + (i * 1000) / RATE;
  let next = 0;
  let accepted = 0;
  let offeredCounted = 0;
  let starved = 0;
  let answeredTotal = 0;
  const minuteSent = () => answeredTotal;
  const send = async () => {
    for (;;) {
      const i = next++;
      if (i >= TOTAL) return;
      const due = dueAt(i);
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      minute.late.push(performance.now() - due);
      const { item, waited } = await take();
      if (waited) {
        starved++;
        minute.starved++;
      }
      const id = await submit(item);
      minute.accept.push(performance.now() - due);
      answeredTotal++;
      if (id === undefined) continue;
      accepted++;
      minute.accepted++;
      const dueEpoch = t0Epoch + (i * 1000) / RATE;
      const e = early.get(id);
      if (e) {
        early.delete(id);
        countFinal(e[2]);
        noteFinal(id, e[2]);
        finalSeen(dueEpoch, e[0], e[1]);
      } else pending.set(id, dueEpoch);
    }
  };

  const rows: Record<string, unknown>[] = [];
  let prev: Snapshot = {
    at: t0,
    cpu: readCpu(),
    rss: readRss(),
    heap: readHeap(firstScrape),
    usedMemory: await usedMemory(),
    auditBytes: await auditBytes(),
    committed: 0,
    accepted: 0,
    finalEvents: 0,
  };
  let prevScan = { ...scanCpu };
  const snapshots: { base?: Snapshot; windows?: Snapshot; end?: Snapshot } = {};
  const worstAcceptP99 = { value: 0, minute: 0 };
  const snapshot = async (at: number): Promise<Snapshot> => {
    const cpu = readCpu();
    const rss = readRss();
    const metrics = await scrape();
    return {
      at,
      cpu,
      rss,
      heap: readHeap(metrics),
      usedMemory: await usedMemory(),
      auditBytes: await auditBytes(),
      committed: workerFinals(metrics.worker).committed - workerBase.committed,
      accepted,
      finalEvents: finals.committed + finals.rejected + finals.expired,
    };
  };
  const baseAtMs = FLAGS.minutes >= 30 ? 10 * 60_000 : RUN_MS / 3;
  const windowsAtMs = retention.windowMs + 60_000; // the windows, then one sweep/trim (every minute)
  const timers = [
    setTimeout(
      async () => {
        snapshots.base = await snapshot(performance.now());
      },
      baseAtMs - (performance.now() - t0),
    ),
  ];
  if (windowsAtMs + 60_000 <= RUN_MS)
    timers.push(
      setTimeout(
        async () => {
          snapshots.windows = await snapshot(performance.now());
        },
        windowsAtMs - (performance.now() - t0),
      ),
    );

  const report = async (m: number, endMs: number) => {
    const cur = await snapshot(performance.now());
    const minuteData = minute;
    minute = newMinute();
    const offered = Math.min(TOTAL, Math.ceil((endMs * RATE) / 1000)) - offeredCounted;
    offeredCounted += offered;
    const store = await storeCount();
    const committedNow = cur.committed - prev.committed;
    const scanDelta = { redis: scanCpu.redis - prevScan.redis, bench: scanCpu.bench - prevScan.bench };
    prevScan = { ...scanCpu };
    const cpuMs: Record<string, number> = {};
    for (const n of names) {
      const excluded = n === 'redis' ? scanDelta.redis : n === 'bench' ? scanDelta.bench : 0;
      cpuMs[n] =
        committedNow > 0
          ? (((cur.cpu[n] ?? 0) - (prev.cpu[n] ?? 0) - excluded) * 1000) / committedNow
          : Number.NaN;
    }
    const quillCpu = (cpuMs.api ?? 0) + (cpuMs.worker ?? 0) + (cpuMs.redis ?? 0);
    const keysNow = await largestKeys();
    const p99 = pct(minuteData.accept, 99);
    if (p99 > worstAcceptP99.value || worstAcceptP99.minute === 0)
      Object.assign(worstAcceptP99, { value: p99, minute: m });
    const spanMin = (cur.at - prev.at) / 60_000;
    const row = {
      minute: m,
      spanMinutes: spanMin,
      offered,
      answered: minuteData.accept.length,
      accepted: minuteData.accepted,
      starved: minuteData.starved,
      committed: committedNow,
      committedTotal: cur.committed,
      acceptedTotal: cur.accepted,
      finalEventsInMinute: cur.finalEvents - prev.finalEvents,
      rejectedTotal: finals.rejected,
      expiredTotal: finals.expired,
      storeCommittedTotal: store.committed - base.committed,
      acceptMs: { p50: pct(minuteData.accept, 50), p99, max: Math.max(...minuteData.accept, 0) },
      sendLateMs: { p99: pct(minuteData.late, 99) },
      e2eFinalMs: { p50: pct(minuteData.e2eFinal, 50), p99: pct(minuteData.e2eFinal, 99) },
      e2eWebhookMs: { p50: pct(minuteData.e2eSeen, 50), p99: pct(minuteData.e2eSeen, 99) },
      relayLagMs: { p50: pct(minuteData.relayLag, 50), p99: pct(minuteData.relayLag, 99) },
      webhookLagMs: { p50: pct(minuteData.webhookLag, 50), p99: pct(minuteData.webhookLag, 99) },
      webhookBacklog: pending.size,
      cpuMsPerTx: { ...cpuMs, quill: quillCpu },
      rssBytes: cur.rss,
      heapUsedBytes: cur.heap,
      redisUsedMemory: cur.usedMemory,
      redisKeys: keysNow.count,
      redisLargest: keysNow.top,
      redisPerRecordKeys: keysNow.perRecord,
      scanMs: keysNow.scanMs,
    };
    rows.push(row);
    const f = (x: number) => (Number.isNaN(x) ? '–' : x.toFixed(2));
    console.log(
      [
        `minute ${m}${Math.abs(spanMin - 1) > 0.02 ? ` (${spanMin.toFixed(2)} min)` : ''}: offered ${offered}, answered ${row.answered}, accepted ${row.accepted}` +
          (row.starved > 0
            ? `, PREPARED BUFFER EMPTY for ${row.starved} sends (the sandbox/bench cannot prepare at this rate)`
            : ''),
        `  committed ${committedNow} (cumulative ${cur.committed} of ${cur.accepted} accepted; the store holds ${row.storeCommittedTotal} committed; final events received ${row.finalEventsInMinute}, rejected ${row.rejectedTotal}, expired ${row.expiredTotal} so far)`,
        `  accept p50 ${ms(row.acceptMs.p50)} p99 ${ms(p99)} max ${ms(row.acceptMs.max)}; sends late p99 ${ms(row.sendLateMs.p99)}`,
        `  end to end (scheduled → final status) p50 ${ms(row.e2eFinalMs.p50)} p99 ${ms(row.e2eFinalMs.p99)}; → webhook received p99 ${ms(row.e2eWebhookMs.p99)}`,
        `  relay lag (final → event) p50 ${ms(row.relayLagMs.p50)} p99 ${ms(row.relayLagMs.p99)}; webhook lag (event → received) p50 ${ms(row.webhookLagMs.p50)} p99 ${ms(row.webhookLagMs.p99)}; awaiting a final event ${pending.size}`,
        `  CPU ms/tx: ${names.map((n) => `${n} ${f(cpuMs[n] as number)}`).join(', ')}; Quill (api+worker+redis) ${f(quillCpu)}`,
        `  RSS: ${names.map((n) => `${n} ${mb(cur.rss[n] ?? 0)}`).join(', ')}; heap in use: api ${mb(cur.heap.api ?? 0)}, worker ${mb(cur.heap.worker ?? 0)}`,
        `  redis used_memory ${mb(cur.usedMemory)}, ${keysNow.count} keys; largest: ${keysNow.top.map(([k, b]) => `${k} ${(b / 1024).toFixed(0)} KB`).join(', ')} ; per-record keys (sub:, idx:cmd:, idx:update:, idem:, bull jobs) ${keysNow.perRecord.count} × ~${(keysNow.perRecord.avgBytes / 1024).toFixed(1)} KB (scan ${ms(keysNow.scanMs)}, its CPU left out)`,
      ].join('\n'),
    );
    prev = cur;
  };

  // Minute blocks while the schedule runs (the last one may be shorter).
  const senders = Array.from({ length: FLAGS.callers }, send);
  const allSent = Promise.all(senders);
  const minutes = Math.ceil(FLAGS.minutes - 1e-9);
  let reporting = Promise.resolve();
  // Sends due in the run but answered after it (a backlog) go on being reported, in blocks after the schedule.
  let sendsDone = false;
  void allSent.then(() => {
    sendsDone = true;
  });
  for (let m = 1; m <= minutes || !sendsDone; m++) {
    const endMs = m <= minutes ? Math.min(m * 60_000, RUN_MS) : RUN_MS + (m - minutes) * 60_000;
    if (m > minutes) {
      await reporting;
      console.log(`(the schedule has ended; sends due in it not answered yet: ${TOTAL - minuteSent()})`);
    }
    const wait = t0 + endMs - performance.now();
    if (wait > 0) await (m <= minutes ? sleep(wait) : Promise.race([sleep(wait), allSent]));
    await reporting;
    reporting = report(m, endMs);
  }
  await reporting;
  snapshots.end = prev;
  for (const t of timers) clearTimeout(t);
  clearInterval(sampler);
  clearInterval(pruner);
  await allSent;

  // Drain: every accepted submission final, and its final event received.
  const drainStart = performance.now();
  for (let last = pending.size, lastMoved = drainStart; pending.size > 0; ) {
    const now = performance.now();
    if (pending.size < last) [last, lastMoved] = [pending.size, now];
    if (now - lastMoved > DRAIN_IDLE_MS || now - drainStart > DRAIN_MAX_MS) break;
    await sleep(200);
  }
  const drainMs = performance.now() - drainStart;
  // What the webhook never reported final: the record as the API has it now (final there: the event went missing;
  // still open or gone: lost).
  const { committed, rejected, expired } = finals;
  const missing = { finalNoEvent: 0, open: 0, gone: 0 };
  const left = [...pending.keys()];
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let id = left.pop(); id !== undefined; id = left.pop()) {
        const r = await call('GET', `${apiUrl}/wallet/v1/submissions/${id}`, {
          authorization: `Bearer ${submitToken}`,
        });
        const status = r.status === 200 ? (JSON.parse(r.text) as { status: string }).status : '';
        if (/^(committed|rejected|expired)$/.test(status)) missing.finalNoEvent++;
        else if (r.status === 404) missing.gone++;
        else missing.open++;
      }
    }),
  );
  const lost = pending.size - missing.finalNoEvent;
  const refusedTotal = [...refused.values()].reduce((a, b) => a + b, 0);
  const transportTotal = [...transportErrors.values()].reduce((a, b) => a + b, 0);
  stopping = true;

  // ---- summary ----
  const lines: string[] = [];
  lines.push(`summary (${FLAGS.minutes} min at ${RATE}/s; drain ${(drainMs / 1000).toFixed(1)} s)`);
  lines.push(
    `  offered ${TOTAL}, accepted ${accepted}, committed ${committed}, rejected ${rejected}, expired ${expired}, ` +
      `refused ${refusedTotal}${refusedTotal ? ` (${[...refused].map(([c, n]) => `${n}× ${c}`).join(', ')})` : ''}, ` +
      `transport errors ${transportTotal}${transportTotal ? ` (${[...transportErrors].map(([c, n]) => `${n}× ${c}`).join(', ')})` : ''}, ` +
      `lost ${lost} (accepted, not final after the drain)`,
  );
  lines.push(
    `  retried sends (ECONNRESET/EPIPE, same key) ${retries}; prepared buffer empty at ${starved} sends; prepare errors ${prepareErrors}`,
  );
  lines.push(
    `  the sandbox: pruned ${pruning.runs} times, up to offset ${pruning.to} (${pruning.errors} failed); ` +
      `each party's notes kept near ${ACTIVE_NOTES_PER_PARTY} active (${committedNotes.reduce((a, l) => a + l.length, 0)} ` +
      `committed notes waiting to be archived at the end)`,
  );
  lines.push(
    `  webhook: ${whEvents} events received, ${whDuplicates} repeats, ${whBadSignatures} bad signatures, ${pending.size} accepted submissions without a final event` +
      (pending.size > 0
        ? ` (the API has ${missing.finalNoEvent} of them final, ${missing.open} open, ${missing.gone} gone)`
        : '') +
      `; the store counts ${(await storeCount()).committed - base.committed} committed`,
  );
  lines.push(`  worst minute accept p99 ${ms(worstAcceptP99.value)} (minute ${worstAcceptP99.minute})`);
  const b = snapshots.base;
  const e = snapshots.end;
  const growthPct = (from: number, to: number) => (from > 0 ? ((to - from) / from) * 100 : Number.NaN);
  const rssGrowth: Record<string, number> = {};
  if (b && e) {
    const txs = e.committed - b.committed;
    const baseLabel =
      FLAGS.minutes >= 30
        ? 'end of minute 10'
        : `first third of the run (${(baseAtMs / 60_000).toFixed(2)} min)`;
    const w = Math.min(5 * 60_000, baseAtMs);
    const span = (from: number) => `${(from / 60_000).toFixed(1)}–${((from + w) / 60_000).toFixed(1)}`;
    lines.push(
      `  memory from the ${baseLabel} to the end (${txs} transactions committed in between); RSS as the median ` +
        `(and the peak) of the 5-s samples of minutes ${span(baseAtMs - w)} against those of minutes ${span(RUN_MS - w)}:`,
    );
    for (const n of names) {
      const [from, to] = [rssMedian(n, baseAtMs - w, baseAtMs), rssMedian(n, RUN_MS - w, RUN_MS)];
      const [peakFrom, peakTo] = [rssPeak(n, baseAtMs - w, baseAtMs), rssPeak(n, RUN_MS - w, RUN_MS)];
      rssGrowth[n] = growthPct(from, to);
      const per100k = txs > 0 ? ((to - from) * 100_000) / txs : Number.NaN;
      lines.push(
        `    ${n.padEnd(8)} RSS ${mb(from)} → ${mb(to)} (${rssGrowth[n]?.toFixed(1)}%), ${mb(per100k)} per 100,000 tx; ` +
          `peak ${mb(peakFrom)} → ${mb(peakTo)} (${growthPct(peakFrom, peakTo).toFixed(1)}%)`,
      );
    }
    const redisPer100k = txs > 0 ? ((e.usedMemory - b.usedMemory) * 100_000) / txs : Number.NaN;
    lines.push(
      `    redis used_memory ${mb(b.usedMemory)} → ${mb(e.usedMemory)} (${growthPct(b.usedMemory, e.usedMemory).toFixed(1)}%), ${mb(redisPer100k)} per 100,000 tx`,
    );
    // The live heap as the mean of the minutes' readings in the same two windows (a reading is one instant).
    const heapMean = (n: string, from: number, to: number) => {
      const xs = rows
        .filter((r) => (r.minute as number) * 60_000 > from && (r.minute as number) * 60_000 <= to)
        .map((r) => (r.heapUsedBytes as Record<string, number>)[n] ?? 0);
      return xs.length > 0 ? xs.reduce((a, x) => a + x, 0) / xs.length : Number.NaN;
    };
    for (const n of ['api', 'worker']) {
      const [from, to] = [heapMean(n, baseAtMs - w, baseAtMs), heapMean(n, RUN_MS - w, RUN_MS)];
      lines.push(
        Number.isNaN(from) || Number.isNaN(to)
          ? `    ${n.padEnd(8)} heap in use: – (no minute ended in one of the windows)`
          : `    ${n.padEnd(8)} heap in use, mean of the minutes' readings: ${mb(from)} → ${mb(to)} (${growthPct(from, to).toFixed(1)}%)`,
      );
    }
  }
  const pass = (ok: boolean | undefined, what: string) =>
    lines.push(`  ${ok === undefined ? 'NOT CHECKED' : ok ? 'PASS' : 'FAIL'}  ${what}`);
  const everyP99 = rows.map((r) => (r.acceptMs as { p99: number }).p99);
  pass(
    everyP99.every((x) => x < 25),
    `accept p99 < 25 ms in every minute (worst ${ms(worstAcceptP99.value)}, minute ${worstAcceptP99.minute})`,
  );
  pass(
    refusedTotal + transportTotal + rejected + expired + lost === 0,
    `no failed or lost submission (refused ${refusedTotal}, transport ${transportTotal}, rejected ${rejected}, expired ${expired}, lost ${lost})`,
  );
  const quillRss = ['api', 'worker'] as const;
  pass(
    b && e ? quillRss.every((n) => (rssGrowth[n] ?? 0) < 10) : undefined,
    `each Quill process's median RSS grows < 10% after ${FLAGS.minutes >= 30 ? 'minute 10' : 'the first third'} (${quillRss.map((n) => `${n} ${rssGrowth[n]?.toFixed(1) ?? '–'}%`).join(', ')}; redis in the next line)`,
  );
  const w = snapshots.windows;
  if (w && e) {
    // The audit chain is kept (never trimmed): its growth is stated per transaction, not counted against flat.
    const [from, to] = [w.usedMemory - w.auditBytes, e.usedMemory - e.auditBytes];
    const grew = to - from;
    const p = growthPct(from, to);
    const ok = p < 10 || grew < 5 * 1048576;
    const txs = e.committed - w.committed;
    const auditPerTx = txs > 0 ? (e.auditBytes - w.auditBytes) / txs : Number.NaN;
    pass(
      ok,
      `Redis memory flat once the retention windows passed, the audit chain aside (from ${((w.at - t0) / 60_000).toFixed(1)} min: ${mb(from)} → ${mb(to)}, ` +
        `${p.toFixed(1)}%, ${mb(grew)}; flat = < 10% or < 5 MB: ${p < 10 ? 'under 10%' : grew < 5 * 1048576 ? 'under 5 MB' : 'neither'}; ` +
        `the audit chain ${mb(w.auditBytes)} → ${mb(e.auditBytes)}, ${auditPerTx.toFixed(0)} bytes per transaction)`,
    );
  } else
    pass(
      undefined,
      `Redis memory flat once the retention windows passed: the run ends before the longest window (${Number.isFinite(retention.windowMs) ? `${(retention.windowMs / 60_000).toFixed(1)} min` : 'a default'}) + one sweep minute + one minute to watch`,
    );
  pass(
    missing.finalNoEvent === 0 && whBadSignatures === 0,
    `every final status reached the webhook receiver, correctly signed (${missing.finalNoEvent} final without their event, ${whBadSignatures} bad signatures)`,
  );
  pass(
    starved === 0,
    `the bench kept to its schedule (prepared buffer never empty: ${starved} sends waited)`,
  );
  for (const l of lines) console.log(l);

  if (FLAGS.json)
    writeFileSync(
      FLAGS.json,
      `${JSON.stringify(
        {
          command: cmdline,
          date: new Date().toISOString(),
          commit,
          machine,
          rate: RATE,
          minutes: FLAGS.minutes,
          callers: FLAGS.callers,
          parties: PARTIES,
          retention: retention.lines,
          rows,
          summary: {
            offered: TOTAL,
            accepted,
            committed,
            rejected,
            expired,
            refused: Object.fromEntries(refused),
            transportErrors: Object.fromEntries(transportErrors),
            lost,
            drainMs,
            snapshots,
            summaryLines: lines,
          },
        },
        null,
        2,
      )}\n`,
    );

  agent.destroy();
  receiver.close();
  redis.disconnect();
  const exited = (c: ChildProcess) =>
    new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r(null) : c.once('exit', r)));
  for (const c of [apiProc, workerProc, sandboxProc]) c.kill('SIGTERM');
  await Promise.race([Promise.all([apiProc, workerProc, sandboxProc].map(exited)), sleep(10_000)]);
  redisProc?.kill('SIGTERM');
  if (redisProc) await Promise.race([exited(redisProc), sleep(5000)]);
  if (redisDir) rmSync(redisDir, { recursive: true, force: true });
  rmSync(keysDir, { recursive: true, force: true });
  process.exit(0);
}

function newMinute() {
  return {
    accept: [] as number[],
    late: [] as number[],
    accepted: 0,
    starved: 0,
    e2eFinal: [] as number[],
    e2eSeen: [] as number[],
    relayLag: [] as number[],
    webhookLag: [] as number[],
  };
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
