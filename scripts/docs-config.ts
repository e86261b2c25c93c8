// `npm run docs:config`: writes docs/configuration.md from the configuration schemas (src/config/). The test
// test/unit/config/docs.test.ts fails when the committed file differs from what this would write.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configReference } from '../src/config/docs.ts';

const path = fileURLToPath(new URL('../docs/configuration.md', import.meta.url));
writeFileSync(path, configReference());
process.stdout.write(`wrote ${path}\n`);
