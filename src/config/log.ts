// How much the process logs.
import { z } from 'zod';
import { section } from './section.ts';

export const log = section({
  summary: 'Logging (see docs/operations.md).',
  vars: {
    LOG_LEVEL: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info')
      .describe('`trace`, `debug`, `info`, `warn`, `error`, `fatal` or `silent`'),
  },
  outputs: { logLevel: true },
  build: (e) => ({ logLevel: e.LOG_LEVEL }),
});
