#!/usr/bin/env node
// Runs the sandbox's TypeScript command line directly (no build step), as bin/quill.js does for the wallet.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli.ts');
const code = await main(process.argv.slice(2), process.env);
process.exitCode = code;
if (code !== 0) setTimeout(() => process.exit(code), 50);
