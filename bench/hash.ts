// Hashing throughput (run with --expose-gc for exact heap numbers): decode + V2 hash of prepared transactions of 10 / 100 / 1,000 / 10,000 nodes, ours
// against @canton-network/core-tx-visualizer in the same run, and both against native SHA-256 over the same
// bytes. Run: npx tsx bench/hash.ts
import { createHash } from 'node:crypto';
import { hashPreparedTransaction as referenceHash } from '@canton-network/core-tx-visualizer';
import {
  decodePreparedTransactionBase64,
  encodePreparedTransactionBase64,
  hashPreparedTransaction,
} from '@quill/canton/transaction';
import { type BuildNode, buildPreparedTransaction, damlValue as V } from '@quill/sandbox/build';

const alice = 'alice::1220aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const bob = 'bob::1220bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
const pkg = 'ab'.repeat(32);
const cid = (i: number) => `00${i.toString(16).padStart(64, '0')}ca10`;

function coin(i: number, owner: string): ReturnType<typeof V.record> {
  return V.record(
    {
      owner: V.party(owner),
      amount: V.numeric(`${i}.0000000000`),
      meta: V.textMap({ memo: V.text(`transfer ${i}`), ref: V.text('x') }),
      lock: V.optional(
        V.record({ holders: V.list([V.party(alice)]), expiresAt: V.timestamp(1729788226000000n) }),
      ),
    },
    `${pkg}:Splice.Amulet:Amulet`,
  );
}

/** `n` nodes: exercises of Transfer, each with up to 9 Create children. */
function transaction(n: number): string {
  const roots: BuildNode[] = [];
  let made = 0;
  while (made < n) {
    const children: BuildNode[] = [];
    const k = Math.min(9, n - made - 1);
    for (let j = 0; j < k; j++) {
      const i = made + 1 + j;
      children.push({
        kind: 'create',
        contractId: cid(i),
        packageName: 'splice-amulet',
        templateId: `${pkg}:Splice.Amulet:Amulet`,
        argument: coin(i, bob),
        signatories: [alice, bob],
      });
    }
    roots.push({
      kind: 'exercise',
      contractId: cid(made),
      packageName: 'splice-amulet',
      templateId: `${pkg}:Splice.Amulet:Amulet`,
      choice: 'Transfer',
      choiceArgument: V.record({ receiver: V.party(bob), amount: V.numeric('1.0000000000') }),
      consuming: true,
      actingParties: [alice],
      signatories: [alice],
      result: V.list(children.map((_, j) => V.contractId(cid(made + 1 + j)))),
      children,
    });
    made += 1 + k;
  }
  const tx = buildPreparedTransaction({
    roots,
    seed: new Uint8Array(32).fill(1),
    actAs: [alice],
    commandId: 'bench',
    synchronizerId: `global-domain::1220${'cd'.repeat(32)}`,
    preparationTime: 1729788226000000n,
    inputContracts: [
      {
        contract: {
          contractId: cid(0),
          packageName: 'splice-amulet',
          templateId: `${pkg}:Splice.Amulet:Amulet`,
          argument: coin(0, alice),
          signatories: [alice],
        },
        createdAt: 1729788000000000n,
      },
    ],
  });
  return encodePreparedTransactionBase64(tx);
}

type Runner = () => unknown;

/**
 * Alternates short slices of the runners so load from other processes hits them alike; each runner first
 * gets one unmeasured slice, so the first size measured is not the JIT's warm-up.
 */
async function race(runners: Runner[], sliceMs: number, rounds: number): Promise<number[]> {
  const acc = runners.map(() => ({ runs: 0, ms: 0 }));
  for (let r = -1; r < rounds; r++) {
    for (const [i, f] of runners.entries()) {
      const t0 = performance.now();
      let runs = 0;
      do {
        await f();
        runs++;
      } while (performance.now() - t0 < sliceMs);
      if (r < 0) continue; // warm-up slice
      acc[i]!.runs += runs;
      acc[i]!.ms += performance.now() - t0;
    }
  }
  return acc.map((a) => (a.runs * 1000) / a.ms);
}

const gc = (globalThis as { gc?: () => void }).gc;
const heap = () => {
  gc?.();
  return process.memoryUsage().heapUsed;
};

// "hash MB/s": hashPreparedTransaction alone on the decoded transaction (validation included);
// "sha256 MB/s": node:crypto's native SHA-256 over the same protobuf bytes, the ceiling for any hasher;
// "of sha256": ours (decode + hash) and the hash alone as a fraction of that.
console.log(
  'size    bytes  ours tx/s  ours MB/s   ref tx/s   ref MB/s   ratio  hash MB/s  sha256 MB/s  of sha256 (ours / hash)  heap growth (ours)',
);
for (const n of [10, 100, 1000, 10000]) {
  const b64 = transaction(n);
  const raw = Buffer.from(b64, 'base64');
  const bytes = raw.length;
  const ours = () =>
    hashPreparedTransaction(decodePreparedTransactionBase64(b64), 'HASHING_SCHEME_VERSION_V2');
  const decoded = decodePreparedTransactionBase64(b64);
  const hashOnly = () => hashPreparedTransaction(decoded, 'HASHING_SCHEME_VERSION_V2');
  const sha = () => createHash('sha256').update(raw).digest();
  const ourHex = Buffer.from(ours()).toString('hex');
  const refHex = await referenceHash(b64, 'hex');
  if (ourHex !== refHex) throw new Error(`hash mismatch at ${n} nodes`);
  if (Buffer.from(hashOnly()).toString('hex') !== refHex) throw new Error(`hash mismatch at ${n} nodes`);
  const before = heap();
  const [oursRate, refRate] = await race([ours, () => referenceHash(b64, 'hex')], n >= 10000 ? 600 : 250, 5);
  const growth = heap() - before;
  const [hashRate, shaRate] = await race([hashOnly, sha], n >= 10000 ? 600 : 250, 3);
  const mbs = (r: number) => (r * bytes) / 1e6;
  const mb = (r: number, w = 9) => mbs(r).toFixed(1).padStart(w);
  const pct = (r: number) => `${((100 * r) / shaRate!).toFixed(1)}%`;
  console.log(
    `${String(n).padStart(5)} ${String(bytes).padStart(8)} ${oursRate!.toFixed(1).padStart(10)} ${mb(oursRate!)}  ${refRate!.toFixed(1).padStart(9)} ${mb(refRate!)}  ${(oursRate! / refRate!).toFixed(2).padStart(6)}x  ${mb(hashRate!)}  ${mb(shaRate!, 11)}  ${`${pct(oursRate!)} / ${pct(hashRate!)}`.padStart(23)}  ${(growth / 1024).toFixed(0)} KiB${gc ? '' : ' (no --expose-gc)'}`,
  );
}
