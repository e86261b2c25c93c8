// Property tests explore new random cases on every developer run; under CI (CI=true) they replay one fixed
// seed (FC_SEED to change it) so a landing never depends on the draw. A failure prints its seed and path.
import fc from 'fast-check';

if (process.env.CI) fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 20261122) });
