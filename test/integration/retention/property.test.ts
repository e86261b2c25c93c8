// Property (issue 32): whatever the interleaving of creations, transitions, relay steps, payload and record
// retention sweeps (run alone or side by side) and outbox trims, no record that is not final, and no record that
// became final after a sweep's cutoff, ever loses its record or an index entry; and once every consumer has passed,
// exactly the final records go.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { relayStep } from '../../../src/events/relay.ts';
import { dropRecords, type SubmissionRecord, trimOutbox } from '../../../src/submissions/index.ts';
import { freshStore, testRedis } from '../../support/records.ts';
import { ALL_INDEXES, commit, created, expireIt, indexed, relayAll, sleep } from './support.ts';

const redis = testRedis();
afterAll(() => redis.quit());

type Op =
  | { t: 'create' }
  | { t: 'final'; pick: number; commit: boolean }
  | { t: 'advance'; pick: number }
  | { t: 'relay'; n: number }
  | { t: 'mark' }
  | { t: 'sweep'; pick: number; twice: boolean }
  | { t: 'trim' };

const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.constant({ t: 'create' as const }), weight: 4 },
  {
    arbitrary: fc.record({ t: fc.constant('final' as const), pick: fc.nat(), commit: fc.boolean() }),
    weight: 3,
  },
  { arbitrary: fc.record({ t: fc.constant('advance' as const), pick: fc.nat() }), weight: 1 },
  {
    arbitrary: fc.record({ t: fc.constant('relay' as const), n: fc.integer({ min: 1, max: 4 }) }),
    weight: 2,
  },
  { arbitrary: fc.constant({ t: 'mark' as const }), weight: 1 },
  {
    arbitrary: fc.record({ t: fc.constant('sweep' as const), pick: fc.nat(), twice: fc.boolean() }),
    weight: 2,
  },
  { arbitrary: fc.constant({ t: 'trim' as const }), weight: 1 },
);

describe('retention under any interleaving', () => {
  it('never touches a record that is not final or final inside the window', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 30 }), async (ops) => {
        const store = freshStore(redis);
        const recs: { r: SubmissionRecord; finalAfter?: number }[] = [];
        const marks: number[] = [];
        let highestCutoff = Number.NEGATIVE_INFINITY;
        const check = async () => {
          for (const x of recs) {
            const safe = x.finalAfter === undefined || x.finalAfter > highestCutoff;
            if (safe) expect(await indexed(store, x.r)).toEqual(ALL_INDEXES);
          }
        };
        for (const o of ops) {
          if (o.t === 'create') recs.push({ r: await created(store, { status: 'accepted' }) });
          else if (o.t === 'final' || o.t === 'advance') {
            const open = recs.filter((x) => x.finalAfter === undefined);
            const x = open[o.pick % Math.max(1, open.length)];
            if (!x) continue;
            if (o.t === 'advance') {
              await store.update(x.r.id, (r) => ({
                ...r,
                status: r.status === 'accepted' ? 'queued' : 'executing',
              }));
              continue;
            }
            x.finalAfter = Date.now();
            await (o.commit ? commit(store, x.r.id) : expireIt(store, x.r.id));
          } else if (o.t === 'relay') {
            await relayStep(redis, store.prefix, o.n);
          } else if (o.t === 'mark') {
            marks.push(Date.now());
            await sleep(2);
          } else if (o.t === 'sweep') {
            const cutoff = marks.length ? (marks[o.pick % marks.length] as number) : Date.now() - 60_000;
            highestCutoff = Math.max(highestCutoff, cutoff);
            await store.dropPayloads(cutoff);
            await Promise.all(
              o.twice
                ? [dropRecords(store, cutoff), dropRecords(store, cutoff)]
                : [dropRecords(store, cutoff)],
            );
          } else {
            await trimOutbox(store, { records: true });
          }
          await check();
        }
        // Everything passed: exactly the final records go, the others keep everything.
        await relayAll(store);
        await sleep(2);
        await dropRecords(store, Date.now());
        for (const x of recs) {
          expect(await indexed(store, x.r)).toEqual(x.finalAfter === undefined ? ALL_INDEXES : []);
        }
      }),
      { numRuns: 30 },
    );
  });
});
