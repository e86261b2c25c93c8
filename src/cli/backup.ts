// `quill backup --out DIR` and `quill restore DIR [--force]`: a deployment's state as files (docs/operations.md,
// "Backup and restore"). A backup holds KEYS_DIR copied as it is (the key files stay sealed: nothing here reads
// the passphrase's secrets or opens a key), every Redis key under REDIS_PREFIX as DUMP payloads with their expiry
// (records, indexes, outbox, audit chain, policy versions, webhooks, cursors, events and both BullMQ queues, which
// live under `<prefix>:bull`), the audit checkpoint file when AUDIT_CHECKPOINT_FILE is set, and `manifest.json`:
// the release, the time, the Redis key count and the SHA-256 of every file. Restore checks every hash first,
// refuses a target that holds data unless --force, then writes the keys and the Redis keys.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, copyFile, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { createInterface } from 'node:readline';
import { Command } from 'commander';
import type { Redis } from 'ioredis';
import { loadConfig } from '../config/index.ts';
import { CommandFailure, UsageError } from '../errors.ts';
import { keyPrefix, redisConnection, redisKeys } from '../redis/index.ts';
import type { CliEnv } from './support.ts';
import { quillVersion } from './version.ts';

/** What `manifest.json` holds. */
export interface BackupManifest {
  format: 'quill-backup';
  formatVersion: 1;
  quillVersion: string;
  createdAt: string;
  redis: { prefix: string; keys: number };
  /** Whether the backup holds the audit checkpoint file (`audit-checkpoints.jsonl`). */
  auditCheckpoints: boolean;
  /** Every other file of the backup, by its path relative to the backup's folder (`/`-separated). */
  files: Record<string, { sha256: string; bytes: number }>;
}

const MANIFEST = 'manifest.json';
const REDIS_FILE = 'redis.jsonl';
const KEYS_SUBDIR = 'keys';
const CHECKPOINTS_FILE = 'audit-checkpoints.jsonl';
const SCAN_COUNT = 500;
const BATCH = 200;

/** One Redis key as a line of redis.jsonl: the key and DUMP payload in base64, the absolute expiry (ms, 0 = none). */
interface KeyLine {
  k: string;
  v: string;
  x: number;
}

const errCode = (err: unknown) => (err as NodeJS.ErrnoException).code ?? (err as Error).message;

async function sha256(file: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(file)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), bytes };
}

/** Every file under `dir` (relative, `/`-separated), skipping the temporary files of atomic writes. */
async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    for (const entry of await readdir(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && !/^\..*\.tmp$/.test(entry.name)) out.push(relative(dir, path));
    }
  };
  await walk(dir);
  return out.map((p) => p.split(sep).join('/')).sort();
}

async function isEmptyDir(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).length === 0;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw new UsageError(`${dir}: ${errCode(err)}`);
  }
}

/** A glob that matches exactly the keys starting with `prefix` (SCAN MATCH). */
const globFor = (prefix: string) => `${prefix.replace(/[*?[\]\\]/g, (c) => `\\${c}`)}*`;

/** Every key under the prefix, once each (SCAN may repeat a key). */
async function* scanKeys(redis: Redis, prefix: string): AsyncGenerator<Buffer[]> {
  const seen = new Set<string>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scanBuffer(cursor, 'MATCH', globFor(prefix), 'COUNT', SCAN_COUNT);
    cursor = String(next);
    const fresh = keys.filter((k) => {
      const s = k.toString('base64');
      if (seen.has(s)) return false;
      seen.add(s);
      return true;
    });
    if (fresh.length > 0) yield fresh;
  } while (cursor !== '0');
}

function redisFor(env: CliEnv) {
  const config = loadConfig(env, ['redis']);
  if (config.redisTarget.clusterNodes?.length) {
    throw new UsageError(
      'backup and restore of a Redis Cluster are not supported: back up its nodes with Redis (BGSAVE, AOF)',
    );
  }
  const redis = redisConnection(config.redisTarget, { maxRetriesPerRequest: 1 });
  redis.on('error', () => {}); // a command's own failure says why
  return { redis, prefix: keyPrefix(config.redisPrefix) };
}

async function writeLine(out: NodeJS.WritableStream, line: string): Promise<void> {
  if (!out.write(line)) await new Promise((r) => out.once('drain', r));
}

/** PTTL and DUMP replies of one key as a line; undefined when the key is gone. */
function keyLine(
  key: Buffer,
  ttlReply: [Error | null, unknown],
  dumpReply: [Error | null, unknown],
  now: number,
) {
  const [ttlErr, ttl] = ttlReply;
  const [dumpErr, dump] = dumpReply;
  if (ttlErr || dumpErr) throw (ttlErr ?? dumpErr) as Error;
  if (dump === null || dump === undefined || ttl === -2) return undefined; // gone since SCAN
  const line: KeyLine = {
    k: key.toString('base64'),
    v: (dump as Buffer).toString('base64'),
    x: (ttl as number) > 0 ? now + (ttl as number) : 0,
  };
  return `${JSON.stringify(line)}\n`;
}

/**
 * Every key under the prefix into `file`, in batches. The audit stream and its head are read last and together
 * (MULTI), so the copy of the chain ends at its head whatever was appended meanwhile.
 */
async function dumpRedis(redis: Redis, prefix: string, file: string): Promise<number> {
  const k = redisKeys(prefix);
  const together = [Buffer.from(k.audit), Buffer.from(k.auditHead)];
  const out = createWriteStream(file, { mode: 0o600 });
  const closed = new Promise<void>((res, rej) => {
    out.once('finish', res);
    out.once('error', rej);
  });
  let count = 0;
  const write = async (line: string | undefined) => {
    if (line === undefined) return;
    await writeLine(out, line);
    count++;
  };
  try {
    for await (const keys of scanKeys(redis, prefix)) {
      const rest = keys.filter((key) => !together.some((t) => t.equals(key)));
      for (let i = 0; i < rest.length; i += BATCH) {
        const batch = rest.slice(i, i + BATCH);
        const pipe = redis.pipeline();
        for (const key of batch) pipe.pttl(key).dumpBuffer(key);
        const replies = (await pipe.exec()) ?? [];
        const now = Date.now();
        for (const [j, key] of batch.entries()) {
          await write(keyLine(key, replies[2 * j] ?? [null, null], replies[2 * j + 1] ?? [null, null], now));
        }
      }
    }
    const multi = redis.multi();
    for (const key of together) multi.pttl(key).dumpBuffer(key);
    const replies = (await multi.exec()) ?? [];
    const now = Date.now();
    for (const [j, key] of together.entries()) {
      await write(keyLine(key, replies[2 * j] ?? [null, null], replies[2 * j + 1] ?? [null, null], now));
    }
  } finally {
    out.end();
    await closed;
  }
  return count;
}

async function backup(env: CliEnv, outDir: string): Promise<BackupManifest> {
  const config = loadConfig(env, ['keys', 'audit']);
  const keysDir = resolve(config.keysDir);
  const checkpointFile = config.auditCheckpoints.file;
  const out = resolve(outDir);
  if (!(await isEmptyDir(out)))
    throw new UsageError(`--out ${outDir}: not empty (a backup goes into a new folder)`);
  try {
    if (!(await stat(keysDir)).isDirectory()) throw new UsageError(`KEYS_DIR ${keysDir}: not a folder`);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`KEYS_DIR ${keysDir}: ${errCode(err)}`);
  }
  const { redis, prefix } = redisFor(env);
  try {
    await mkdir(out, { recursive: true, mode: 0o700 });
    await chmod(out, 0o700);
    // The checkpoints first: each one then signs a chain the Redis copy holds (or a beginning of it).
    let auditCheckpoints = false;
    if (checkpointFile !== undefined) {
      try {
        await copyFile(checkpointFile, join(out, CHECKPOINTS_FILE));
        await chmod(join(out, CHECKPOINTS_FILE), 0o600);
        auditCheckpoints = true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
    const keys = await dumpRedis(redis, prefix, join(out, REDIS_FILE));
    // The key store last: keys are never deleted (only disabled), so every key a copied record names is in it.
    for (const rel of await filesUnder(keysDir)) {
      const to = join(out, KEYS_SUBDIR, rel);
      await mkdir(dirname(to), { recursive: true, mode: 0o700 });
      await copyFile(join(keysDir, rel), to);
      await chmod(to, 0o600);
    }
    const files: BackupManifest['files'] = {};
    for (const rel of await filesUnder(out)) files[rel] = await sha256(join(out, rel));
    const manifest: BackupManifest = {
      format: 'quill-backup',
      formatVersion: 1,
      quillVersion: quillVersion(),
      createdAt: new Date().toISOString(),
      redis: { prefix: prefix.replace(/:$/, ''), keys },
      auditCheckpoints,
      files,
    };
    await writeFile(join(out, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
    return manifest;
  } finally {
    redis.disconnect();
  }
}

/** Reads and checks `manifest.json`: garbage is bad input (exit 2). */
async function readManifest(dir: string): Promise<BackupManifest> {
  let text: string;
  try {
    if (!(await stat(dir)).isDirectory()) throw new UsageError(`${dir}: not a folder`);
    text = await readFile(join(dir, MANIFEST), 'utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`${join(dir, MANIFEST)}: ${errCode(err)}`);
  }
  let m: BackupManifest;
  try {
    m = JSON.parse(text) as BackupManifest;
  } catch {
    throw new UsageError(`${join(dir, MANIFEST)}: not JSON`);
  }
  const shaped =
    m !== null &&
    typeof m === 'object' &&
    m.format === 'quill-backup' &&
    typeof m.redis?.keys === 'number' &&
    typeof m.redis.prefix === 'string' &&
    m.files !== null &&
    typeof m.files === 'object' &&
    Object.entries(m.files).every(
      ([p, f]) =>
        typeof f?.sha256 === 'string' &&
        /^[0-9a-f]{64}$/.test(f.sha256) &&
        p !== '' &&
        !p.split('/').some((s) => s === '' || s === '.' || s === '..'),
    );
  if (!shaped) throw new UsageError(`${join(dir, MANIFEST)}: not a Quill backup manifest`);
  if (m.formatVersion !== 1) {
    throw new UsageError(
      `${join(dir, MANIFEST)}: format version ${String(m.formatVersion)} is not known here`,
    );
  }
  if (!(REDIS_FILE in m.files)) throw new UsageError(`${join(dir, MANIFEST)}: names no ${REDIS_FILE}`);
  return m;
}

/** Every file the manifest names has its hash: exit 1 naming the first that does not. */
async function checkHashes(dir: string, m: BackupManifest): Promise<void> {
  for (const [rel, want] of Object.entries(m.files)) {
    let got: { sha256: string };
    try {
      got = await sha256(join(dir, rel));
    } catch (err) {
      throw new CommandFailure(`backup file ${rel}: ${errCode(err)}`);
    }
    if (got.sha256 !== want.sha256) {
      throw new CommandFailure(`backup file ${rel}: its SHA-256 is not the manifest's (changed or damaged)`);
    }
  }
}

/**
 * A BullMQ job lock (`<prefix>:bull:<queue>:<job>:lock`): held by a worker of the backed-up deployment, which is
 * stopped when it is restored. Left out, the job counts as stalled at once and BullMQ's stalled check
 * (WORKER_STALLED_INTERVAL_MS) puts it back in the queue; restored, it would wait out the lock (WORKER_LOCK_DURATION_MS).
 */
const isJobLock = (key: Buffer, prefix: string) => {
  const s = key.toString('utf8');
  return s.startsWith(`${prefix}bull:`) && s.endsWith(':lock');
};

async function restoreRedis(
  redis: Redis,
  prefix: string,
  file: string,
): Promise<{ restored: number; expired: number; locks: number }> {
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY });
  let restored = 0;
  let expired = 0;
  let locks = 0;
  let batch: KeyLine[] = [];
  let lineNo = 0;
  const want = Buffer.from(prefix);
  const flush = async () => {
    if (batch.length === 0) return;
    const pipe = redis.pipeline();
    for (const l of batch) {
      const key = Buffer.from(l.k, 'base64');
      const value = Buffer.from(l.v, 'base64');
      if (l.x > 0) pipe.restore(key, l.x, value, 'REPLACE', 'ABSTTL');
      else pipe.restore(key, 0, value, 'REPLACE');
    }
    for (const [err] of (await pipe.exec()) ?? [])
      if (err) throw new CommandFailure(`RESTORE: ${err.message}`);
    restored += batch.length;
    batch = [];
  };
  for await (const text of lines) {
    lineNo++;
    if (text.trim() === '') continue;
    let l: KeyLine;
    try {
      l = JSON.parse(text) as KeyLine;
    } catch {
      throw new CommandFailure(`${REDIS_FILE}:${lineNo}: not JSON`);
    }
    if (typeof l?.k !== 'string' || typeof l.v !== 'string' || typeof l.x !== 'number') {
      throw new CommandFailure(`${REDIS_FILE}:${lineNo}: not a key line`);
    }
    if (!Buffer.from(l.k, 'base64').subarray(0, want.length).equals(want)) {
      throw new CommandFailure(`${REDIS_FILE}:${lineNo}: a key outside the prefix ${prefix}`);
    }
    if (isJobLock(Buffer.from(l.k, 'base64'), prefix)) {
      locks++;
      continue;
    }
    if (l.x > 0 && l.x <= Date.now()) {
      expired++; // a lease, a rate limit or a session that ran out since the backup
      continue;
    }
    batch.push(l);
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  return { restored, expired, locks };
}

async function restore(env: CliEnv, dirArg: string, force: boolean): Promise<string> {
  const dir = resolve(dirArg);
  const manifest = await readManifest(dir);
  const config = loadConfig(env, ['keys', 'audit']);
  const keysDir = resolve(config.keysDir);
  const checkpointFile = config.auditCheckpoints.file;
  await checkHashes(dir, manifest);
  const { redis, prefix } = redisFor(env);
  try {
    // The records, queues and indexes name one another by key: they come back under the prefix they were taken
    // from, so the target must use it.
    if (keyPrefix(manifest.redis.prefix) !== prefix) {
      throw new UsageError(
        `the backup is of REDIS_PREFIX ${manifest.redis.prefix}, not ${prefix.replace(/:$/, '')}: restore it under its own prefix`,
      );
    }
    // The target: KEYS_DIR empty, nothing under the prefix, no checkpoint file, unless --force.
    const keysEmpty = await isEmptyDir(keysDir);
    let present = false;
    for await (const _ of scanKeys(redis, prefix)) {
      present = true;
      break;
    }
    const checkpointsThere =
      manifest.auditCheckpoints &&
      checkpointFile !== undefined &&
      (await stat(checkpointFile).then(
        (s) => s.size > 0,
        () => false,
      ));
    if (!force) {
      const refusals = [
        ...(keysEmpty ? [] : [`KEYS_DIR ${keysDir} is not empty`]),
        ...(present ? [`Redis holds keys under ${prefix}`] : []),
        ...(checkpointsThere ? [`AUDIT_CHECKPOINT_FILE ${checkpointFile} is not empty`] : []),
      ];
      if (refusals.length > 0) {
        throw new CommandFailure(
          `refusing to restore over existing data: ${refusals.join('; ')} (--force replaces it)`,
        );
      }
    }
    const keyFiles = Object.keys(manifest.files).filter((p) => p.startsWith(`${KEYS_SUBDIR}/`));
    await mkdir(keysDir, { recursive: true, mode: 0o700 });
    await chmod(keysDir, 0o700);
    for (const rel of keyFiles) {
      const to = join(keysDir, rel.slice(KEYS_SUBDIR.length + 1));
      await mkdir(dirname(to), { recursive: true, mode: 0o700 });
      await copyFile(join(dir, rel), to);
      await chmod(to, 0o600);
    }
    if (force && present) {
      // --force: what is under the prefix becomes exactly the backup's.
      for await (const keys of scanKeys(redis, prefix)) await redis.del(...keys);
    }
    const { restored, expired, locks } = await restoreRedis(redis, prefix, join(dir, REDIS_FILE));
    let checkpoints = '';
    if (manifest.auditCheckpoints && CHECKPOINTS_FILE in manifest.files) {
      if (checkpointFile === undefined) {
        checkpoints = `; the backup's audit checkpoints are in ${join(dir, CHECKPOINTS_FILE)} (AUDIT_CHECKPOINT_FILE is not set)`;
      } else {
        await mkdir(dirname(resolve(checkpointFile)), { recursive: true });
        await copyFile(join(dir, CHECKPOINTS_FILE), checkpointFile);
        await chmod(checkpointFile, 0o600);
        checkpoints = `; audit checkpoints to ${checkpointFile}`;
      }
    }
    const left = [
      ...(expired > 0 ? [`${expired} had expired since the backup`] : []),
      ...(locks > 0 ? [`${locks} job locks of the stopped workers left out`] : []),
    ];
    const gone = left.length > 0 ? ` (${left.join('; ')})` : '';
    return (
      `restored ${keyFiles.length} key-store files to ${keysDir} and ${restored} Redis keys under ` +
      `${prefix}${gone}${checkpoints}; backup of ${manifest.createdAt} by Quill ${manifest.quillVersion}`
    );
  } finally {
    redis.disconnect();
  }
}

export function backupCommand(env: CliEnv = {}): Command {
  return new Command('backup')
    .description(
      'copy KEYS_DIR (still sealed), every Redis key under REDIS_PREFIX and AUDIT_CHECKPOINT_FILE into a new ' +
        'folder, with manifest.json (release, time, key count, SHA-256 of every file)',
    )
    .requiredOption('--out <dir>', 'the backup folder (new, or empty)')
    .action(async (opts: { out: string }) => {
      const m = await backup(env, opts.out);
      process.stdout.write(
        `backup in ${resolve(opts.out)}: ${Object.keys(m.files).length} files, ${m.redis.keys} Redis keys under ` +
          `${m.redis.prefix}, at ${m.createdAt}\n`,
      );
    });
}

export function restoreCommand(env: CliEnv = {}): Command {
  return new Command('restore')
    .description(
      'check a backup against its manifest, then write its keys into an empty KEYS_DIR and its Redis keys ' +
        'under an empty REDIS_PREFIX (and AUDIT_CHECKPOINT_FILE); exit 1 naming a file whose hash differs',
    )
    .argument('<dir>', 'a folder written by quill backup')
    .option('--force', 'restore over existing data: delete every key under the prefix first, overwrite files')
    .action(async (dir: string, opts: { force?: boolean }) => {
      process.stdout.write(`${await restore(env, dir, opts.force === true)}\n`);
    });
}
