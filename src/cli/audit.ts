// `quill audit export [--out FILE]` and `quill audit verify [FILE] [--checkpoints FILE]`: the audit chain from Redis
// (REDIS_URL, REDIS_PREFIX) as JSON lines `{"id":…,"fields":[[name,value],…]}`, and its check, naming the first
// broken link, then against the signed checkpoints kept outside Redis (AUDIT_CHECKPOINT_FILE by default), which
// name a cut-off tail or a re-linked rewrite. verify also reads the console's CSV export (its `entry` column holds
// the same JSON per entry).
import { readFile, writeFile } from 'node:fs/promises';
import { Command } from 'commander';
import {
  AuditLog,
  type ChainEntry,
  checkCheckpoints,
  type LocatedCheckpoint,
  parseCheckpoints,
  verifyAuditChain,
} from '../audit/index.ts';
import { ConfigError, loadConfig } from '../config/index.ts';
import { entriesFromCsv } from '../console/index.tsx';
import { CommandFailure, UsageError } from '../errors.ts';
import { redisConnection } from '../redis/index.ts';
import { openKeyring } from '../server/parts.ts';
import { type PublicKeyView, parsePublicKey, SigningError } from '../signing/index.ts';
import type { CliEnv } from './support.ts';

async function fromRedis(env: CliEnv): Promise<{ entries: ChainEntry[]; head: string | undefined }> {
  const config = loadConfig(env, ['redis']);
  const redis = redisConnection(config.redisTarget, { maxRetriesPerRequest: 1 });
  try {
    const audit = new AuditLog(redis, config.redisPrefix);
    const entries: ChainEntry[] = [];
    for (let after = '0-0'; ; ) {
      const page = await audit.entries(after, 1000);
      entries.push(...page);
      if (page.length < 1000) break;
      after = page.at(-1)?.id ?? after;
    }
    return { entries, head: await audit.head() };
  } finally {
    redis.disconnect();
  }
}

function parseLines(text: string, file: string): ChainEntry[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((line, i) => {
      let v: unknown;
      try {
        v = JSON.parse(line);
      } catch {
        throw new UsageError(`${file}:${i + 1}: not a JSON line`);
      }
      const e = v as ChainEntry;
      if (
        typeof e?.id !== 'string' ||
        !Array.isArray(e.fields) ||
        !e.fields.every((f) => Array.isArray(f) && f.length === 2 && f.every((x) => typeof x === 'string'))
      ) {
        throw new UsageError(
          `${file}:${i + 1}: not an audit entry ({"id": string, "fields": [[name, value], …]})`,
        );
      }
      return e;
    });
}

async function readText(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`${what}${file}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
}

function readCheckpoints(text: string, file: string): LocatedCheckpoint[] {
  const parsed = parseCheckpoints(text);
  if (!parsed.ok) throw new UsageError(`${file}:${parsed.line}: ${parsed.problem}`);
  return parsed.checkpoints;
}

/** `--audit-public-key`: a file holding the key, or the key itself. */
async function givenPublicKey(value: string): Promise<PublicKeyView> {
  const text = await readFile(value, 'utf8').catch(() => value);
  try {
    return parsePublicKey(text);
  } catch (err) {
    throw new UsageError(`--audit-public-key: ${(err as Error).message}`);
  }
}

/** The public keys the checkpoints name, from the key ring (KEYS_DIR, PKCS11_*); a key it lacks stays unknown. */
async function keyringKeys(env: CliEnv, fingerprints: Set<string>): Promise<Map<string, PublicKeyView>> {
  const keys = new Map<string, PublicKeyView>();
  if (fingerprints.size === 0) return keys;
  let ring: ReturnType<typeof openKeyring>;
  try {
    ring = openKeyring(loadConfig(env, ['keys']));
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    throw new UsageError(
      `the checkpoints' key is read from the key ring: ${err.message}; or give --audit-public-key`,
    );
  }
  try {
    for (const fp of fingerprints) {
      try {
        keys.set(fp, await ring.get(fp));
      } catch (err) {
        if (!(err instanceof SigningError && err.code === 'NOT_FOUND')) throw err;
      }
    }
  } finally {
    await ring.close();
  }
  return keys;
}

export function auditCommand(env: CliEnv = {}): Command {
  const audit = new Command('audit').description('the tamper-evident audit chain (REDIS_URL, REDIS_PREFIX)');
  audit
    .command('export')
    .description('write the audit chain as JSON lines (stdout, or --out FILE)')
    .option('--out <file>', 'write to this file instead of stdout')
    .action(async (opts: { out?: string }) => {
      const { entries } = await fromRedis(env);
      const text = entries.map((e) => JSON.stringify(e)).join('\n') + (entries.length ? '\n' : '');
      if (opts.out) await writeFile(opts.out, text, { mode: 0o600 });
      else process.stdout.write(text);
    });
  audit
    .command('verify')
    .description(
      'check every link of the chain (from Redis, or an exported FILE), then the chain against the signed ' +
        'checkpoints; exit 1 naming the first problem',
    )
    .argument('[file]', "an exported chain (quill audit export, or the console's unfiltered CSV export)")
    .option(
      '--checkpoints <file>',
      'the signed checkpoints (JSON lines) to check the chain against (default: AUDIT_CHECKPOINT_FILE)',
    )
    .option(
      '--audit-public-key <key>',
      "the audit key's public key (a file, or PEM/base64/hex SPKI, or the JSON of quill keys show --json), " +
        'instead of reading it from the key ring',
    )
    .action(async (file: string | undefined, opts: { checkpoints?: string; auditPublicKey?: string }) => {
      const checkpointFile = opts.checkpoints ?? loadConfig(env, ['audit']).auditCheckpoints.file;
      // The checkpoints are read first: a file that is not one is bad input whatever the chain says.
      const checkpoints =
        checkpointFile === undefined
          ? undefined
          : readCheckpoints(await readText(checkpointFile, 'checkpoints: '), checkpointFile);
      const given = opts.auditPublicKey ? await givenPublicKey(opts.auditPublicKey) : undefined;
      let entries: ChainEntry[];
      let head: string | undefined;
      if (file) {
        const text = await readText(file, '');
        if (!text.startsWith('id,')) entries = parseLines(text, file);
        else {
          try {
            entries = entriesFromCsv(text);
          } catch (err) {
            throw new UsageError(`${file}: ${(err as Error).message}`);
          }
        }
      } else {
        ({ entries, head } = await fromRedis(env));
      }
      const verdict = verifyAuditChain(entries, head);
      if (!verdict.ok) {
        throw new CommandFailure(
          `audit chain broken at entry ${verdict.index + 1} of ${verdict.count} (${verdict.id}): ${verdict.reason}`,
        );
      }
      const ok = `ok: ${verdict.count} entries, head ${verdict.head}`;
      if (!checkpoints || checkpointFile === undefined) {
        process.stdout.write(`${ok}\n`);
        return;
      }
      const keys = given
        ? new Map([[given.fingerprint, given]])
        : await keyringKeys(env, new Set(checkpoints.map((c) => c.checkpoint.key)));
      const checked = checkCheckpoints(entries, checkpoints, (fp) => keys.get(fp), {
        file: checkpointFile,
        unknownKey: given
          ? `not the --audit-public-key (${given.fingerprint})`
          : 'which is not in the key ring (KEYS_DIR, PKCS11_*)',
      });
      if (!checked.ok) throw new CommandFailure(`audit checkpoints: ${checked.reason}`);
      const newest = checked.newest
        ? `, the newest of ${checked.newest.at} (${checked.newest.count} entries)`
        : ' (the file has none yet)';
      process.stdout.write(`${ok}\n${checked.checked} checkpoints checked${newest}\n`);
    });
  return audit;
}
