// Operator logs: one JSON line per event on stderr (stdout is for command output and the demo banner).
// Modules log through the small `Log` function so they do not depend on the logging library; events carry
// ids, codes and timings only. Redaction is a second line of defence for anything secret-shaped.
import { pino } from 'pino';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type Log = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => void;

/** For callers that were given no log (tests, benchmarks, library use). */
export const noLog: Log = () => {};

const SECRET_SHAPED = ['authorization', 'token', 'secret', 'passphrase', 'privateKey', 'seed', 'password'];

/** JSON lines on stderr at `level` and above (LOG_LEVEL: trace … fatal, or silent). */
export function jsonLog(level: string, destination: number | string = 2): Log {
  const logger = pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: SECRET_SHAPED.flatMap((k) => [k, `*.${k}`]), censor: '[redacted]' },
    },
    pino.destination({ dest: destination, sync: true }),
  );
  return (lvl, msg, fields) => (fields ? logger[lvl](fields, msg) : logger[lvl](msg));
}

/**
 * One warning per `everyMs` while a dependency stays unreachable, however many connections fail and retry, then
 * one line when it answers again. Without it a Redis outage prints a warning per reconnect attempt per connection.
 */
export function outageReporter(log: Log, what: string, everyMs: number) {
  let down = false;
  let lastAt = 0;
  let since = 0;
  return {
    failed(source: string, err: unknown): void {
      const now = Date.now();
      if (down && now - lastAt < everyMs) {
        since++;
        return;
      }
      const message = err instanceof Error ? err.message : String(err);
      log('warn', `${what} is unreachable, retrying`, {
        source,
        error: message,
        ...(since > 0 ? { failuresSinceLastReport: since } : {}),
      });
      down = true;
      lastAt = now;
      since = 0;
    },
    recovered(): void {
      if (!down) return;
      down = false;
      since = 0;
      log('info', `${what} is reachable again`);
    },
  };
}
