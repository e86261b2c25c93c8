#!/usr/bin/env node
// Runs the TypeScript CLI directly (no build step), so `npm ci && npm start` works from a fresh clone.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/index.ts');
process.exitCode = await main(process.argv.slice(2), process.env);
