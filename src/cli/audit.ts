// `quill audit export [--out FILE]` and `quill audit verify [FILE]`: the audit chain from Redis (REDIS_URL,
// REDIS_PREFIX) as JSON lines `{"id":…,"fields":[[name,value],…]}`, and its check, naming the first broken link.
// verify also reads the console's CSV export (its `entry` column holds the same JSON per entry).
import { readFile, writeFile } from 'node:fs/promises';
import { Command } from 'commander';
import { AuditLog, type ChainEntry, verifyAuditChain } from '../audit/index.ts';
import { loadConfig } from '../config/index.ts';
import { entriesFromCsv } from '../console/index.tsx';
import { CommandFailure, UsageError } from '../errors.ts';
import { redisConnection } from '../redis/index.ts';
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
      'check every link of the chain (from Redis, or an exported FILE); exit 1 naming the first broken one',
    )
    .argument('[file]', "an exported chain (quill audit export, or the console's unfiltered CSV export)")
    .action(async (file?: string) => {
      let entries: ChainEntry[];
      let head: string | undefined;
      if (file) {
        let text: string;
        try {
          text = await readFile(file, 'utf8');
        } catch (err) {
          throw new UsageError(`${file}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`);
        }
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
      process.stdout.write(`ok: ${verdict.count} entries, head ${verdict.head}\n`);
    });
  return audit;
}
