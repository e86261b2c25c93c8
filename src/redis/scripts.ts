// Lua scripts as files (`lua/<name>.lua`), loaded once, with BullMQ's `--- @include "<name>"` lines replaced by
// `lua/includes/<name>.lua` or by a generated include the caller supplies (the status table comes from
// src/submissions/record.ts). Scripts run by SHA and are sent again after a Redis restart forgot them.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';

export interface LuaScript {
  name: string;
  source: string;
  sha: string;
}

const DIR = new URL('./lua/', import.meta.url);
const INCLUDE = /^--- @include "([a-z0-9-]+)"$/gm;

/** `lua/<name>.lua` with its includes in place (each include once; a generated one wins over a file). */
export function loadScript(name: string, generated: Readonly<Record<string, string>> = {}): LuaScript {
  const seen = new Set<string>();
  const expand = (text: string): string =>
    text.replace(INCLUDE, (_line, inc: string) => {
      if (seen.has(inc)) return '';
      seen.add(inc);
      return expand(generated[inc] ?? readFileSync(new URL(`includes/${inc}.lua`, DIR), 'utf8'));
    });
  const source = expand(readFileSync(new URL(`${name}.lua`, DIR), 'utf8'));
  return { name, source, sha: createHash('sha1').update(source).digest('hex') };
}

/** Runs a script by SHA, loading it again after a Redis restart (NOSCRIPT). */
export async function runScript(
  redis: Redis,
  s: LuaScript,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  try {
    return await redis.evalsha(s.sha, keys.length, ...keys, ...args);
  } catch (err) {
    if (err instanceof Error && err.message.startsWith('NOSCRIPT')) {
      return redis.eval(s.source, keys.length, ...keys, ...args);
    }
    throw err;
  }
}
