// Worker threads do not inherit the TypeScript loader that bin/quill.js (or vitest) registered on the main
// thread, so each inspection thread registers it before loading its module.
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
