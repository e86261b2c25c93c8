// `quill events tail`: follows GET /wallet/v1/events and prints one JSON event per line (QUILL_URL, QUILL_TOKEN:
// config `client`). Reconnects after a dropped connection, resuming after the last event it printed; stops with
// exit 1 when the wallet says events were lost to retention (410), 2 on bad options or a 4xx answer.
import { Command } from 'commander';
import { loadConfig } from '../config/index.ts';
import { CommandFailure, UsageError } from '../errors.ts';
import { EVENT_TYPES, isEventId, isEventType } from '../events/index.ts';
import type { CliEnv } from './support.ts';

export function eventsCommand(env: CliEnv = {}): Command {
  const events = new Command('events').description('events of the wallet (live stream)');
  events
    .command('tail')
    .description(
      'print events as they happen, one JSON object per line. QUILL_URL (default http://127.0.0.1:8080) and QUILL_TOKEN from the environment',
    )
    .option('--party <party>', "only this party's events")
    .option('--types <types>', `comma-separated event types (${EVENT_TYPES.join(', ')})`)
    .option('--after <eventId>', 'start after this event id (default: from now on)')
    .option('--max <n>', 'stop after printing n events')
    .action(async (o: { party?: string; types?: string; after?: string; max?: string }) => {
      const types = (o.types ?? '')
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t !== '');
      for (const t of types) if (!isEventType(t)) throw new UsageError(`--types: unknown event type ${t}`);
      if (o.party !== undefined && (o.party === '' || o.party.length > 512))
        throw new UsageError('--party: 1-512 characters');
      if (o.after !== undefined && !isEventId(o.after))
        throw new UsageError('--after: not an event id (<ms>-<seq>)');
      const max = o.max === undefined ? Number.POSITIVE_INFINITY : Number(o.max);
      if (!(max > 0) || (o.max !== undefined && !Number.isSafeInteger(max)))
        throw new UsageError('--max takes a positive integer');
      const { walletUrl: base, walletToken: token } = loadConfig(env, ['client']);
      const q = new URLSearchParams();
      if (types.length > 0) q.set('types', types.join(','));
      if (o.party !== undefined) q.set('party', o.party);
      let last = o.after;
      let printed = 0;
      let failures = 0;
      for (;;) {
        let res: Response;
        try {
          res = await fetch(`${base}/wallet/v1/events?${q}`, {
            headers: {
              accept: 'text/event-stream',
              ...(token ? { authorization: `Bearer ${token}` } : {}),
              ...(last ? { 'last-event-id': last } : {}),
            },
          });
        } catch (err) {
          if (++failures > 5)
            throw new CommandFailure(`cannot reach the wallet at ${base}: ${(err as Error).message}`);
          await new Promise((r) => setTimeout(r, 1000 * failures));
          continue;
        }
        if (!res.ok) {
          let line = `HTTP ${res.status}`;
          try {
            const e = ((await res.json()) as { error?: { code?: string; message?: string } }).error;
            if (e) line = `${e.code}: ${e.message}`;
          } catch {
            // not JSON
          }
          if (res.status >= 400 && res.status < 500 && ![401, 403, 410].includes(res.status))
            throw new UsageError(line);
          throw new CommandFailure(line);
        }
        failures = 0;
        const reader = res.body?.getReader();
        const dec = new TextDecoder();
        let buf = '';
        try {
          while (reader) {
            const { value, done } = await reader.read();
            if (done) break;
            buf += dec.decode(value, { stream: true });
            for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
              const block = buf.slice(0, i);
              buf = buf.slice(i + 2);
              let id: string | undefined;
              let data: string | undefined;
              for (const line of block.split('\n')) {
                if (line.startsWith('id:')) id = line.slice(3).trim();
                else if (line.startsWith('data:')) data = line.slice(5).replace(/^ /, '');
              }
              if (id && data) {
                process.stdout.write(`${data}\n`);
                last = id;
                if (++printed >= max) {
                  await reader.cancel().catch(() => {});
                  return;
                }
              }
            }
          }
        } catch {
          // dropped: reconnect after the last event printed
        }
        await new Promise((r) => setTimeout(r, 500));
      }
    });
  return events;
}
