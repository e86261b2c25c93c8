#!/usr/bin/env node
// Runs the TypeScript CLI directly (no build step), so `npm ci && npm start` works from a fresh clone.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/index.ts');
const code = await main(process.argv.slice(2), process.env);
process.exitCode = code;
// A failed command has said its one line: leave now, even if a client library still holds a timer.
if (code !== 0) setTimeout(() => process.exit(code), 50);
