// Sandbox throughput. Run: npx tsx bench/sandbox.ts [updates=100000] [executes=300]
// 1. Updates/s streamed through POST /v2/updates/flats (pages of 200 over real HTTP) for a ledger of
//    `updates` coin taps, against a baseline in the same run: the same updates rendered in-process.
// 2. Executes/s: prepare once per command, sign with node:crypto Ed25519, then executeAndWait over HTTP
//    (hash recomputed, signature verified, dedup, commit), against in-process plan+commit of the same kind.
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { commitExecution, planExecution } from '../src/execute.ts';
import { startSandbox, submitInternal } from '../src/index.ts';
import { formatOf, renderUpdate } from '../src/render.ts';

const UPDATES = Number(process.argv[2] ?? 100_000);
const EXECUTES = Number(process.argv[3] ?? 300);

const sb = await startSandbox({ port: 0, scanPort: 0, auth: 'none' });
// biome-ignore lint/suspicious/noExplicitAny: benchmark reads JSON answers loosely
const post = async (path: string, body: unknown): Promise<any> => {
  const res = await fetch(sb.url + path, { method: 'POST', body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json();
};

// An external party with an Ed25519 key.
const key = generateKeyPairSync('ed25519');
const raw = key.publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
const synchronizer = sb.state.defaultSynchronizer;
const topo = await post('/v2/parties/external/generate-topology', {
  synchronizer,
  partyHint: 'bench',
  publicKey: {
    format: 'CRYPTO_KEY_FORMAT_RAW',
    keyData: raw.toString('base64'),
    keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519',
  },
});
const signature = (message: Buffer) => ({
  format: 'SIGNATURE_FORMAT_CONCAT',
  signature: sign(null, message, key.privateKey).toString('base64'),
  signedBy: topo.publicKeyFingerprint,
  signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519',
});
await post('/v2/parties/external/allocate', {
  synchronizer,
  onboardingTransactions: topo.topologyTransactions.map((transaction: string) => ({ transaction })),
  multiHashSignatures: [signature(Buffer.from(topo.multiHash, 'base64'))],
});
const party: string = topo.partyId;
const tap = (amount: string) => ({
  ExerciseCommand: {
    templateId: '#quill-coin:Quill.Coin:CoinRules',
    contractId: sb.state.coinRules,
    choice: 'CoinRules_DevNet_Tap',
    choiceArgument: { receiver: party, amount },
  },
});

// Fill the ledger.
let t = performance.now();
for (let i = 0; i < UPDATES; i++) submitInternal(sb.state, [tap('1.0000000000')], [party]);
const fillMs = performance.now() - t;
// The synchronous fill blocked the event loop past the keep-alive timeout: let both ends drop the idle socket.
await new Promise((r) => setTimeout(r, 200));

// 1. flats over HTTP, pages of 200.
const updateFormat = {
  includeTransactions: {
    eventFormat: { filtersByParty: { [party]: {} } },
    transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
  },
};
const end = sb.state.log.end;
t = performance.now();
let streamed = 0;
for (let begin = 0; begin < end; ) {
  const page = (await post('/v2/updates/flats?limit=200', {
    beginExclusive: begin,
    endInclusive: end,
    updateFormat,
  })) as {
    update: Record<string, { value: { offset: number } }>;
  }[];
  if (page.length === 0) break;
  streamed += page.length;
  const last = page[page.length - 1]!;
  begin = Object.values(last.update)[0]!.value.offset;
}
const httpMs = performance.now() - t;
t = performance.now();
const format = formatOf(updateFormat as never);
let rendered = 0;
for (let o = 1; o <= end; o++) {
  const rec = sb.state.log.at(o);
  const u = rec ? renderUpdate(rec, format) : undefined;
  if (u) {
    JSON.stringify(u);
    rendered++;
  }
}
const inProcessMs = performance.now() - t;

// 2. executes.
const prepared = [];
for (let i = 0; i < EXECUTES * 2; i++) {
  const p = await post('/v2/interactive-submission/prepare', {
    userId: 'bench',
    commandId: `bench-${randomUUID()}`,
    commands: [tap('2.0000000000')],
    actAs: [party],
    synchronizerId: '',
    packageIdSelectionPreference: [],
  });
  prepared.push(p);
}
const body = (p: { preparedTransaction: string; preparedTransactionHash: string }) => ({
  preparedTransaction: p.preparedTransaction,
  partySignatures: {
    signatures: [{ party, signatures: [signature(Buffer.from(p.preparedTransactionHash, 'base64'))] }],
  },
  submissionId: randomUUID(),
  hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2' as const,
  deduplicationPeriod: { Empty: {} },
  userId: 'bench', // auth is off: the participant refuses an empty userId (INVALID_TOKEN)
});
t = performance.now();
for (const p of prepared.slice(0, EXECUTES)) await post('/v2/interactive-submission/executeAndWait', body(p));
const execHttpMs = performance.now() - t;
t = performance.now();
for (const p of prepared.slice(EXECUTES)) {
  commitExecution(sb.state, planExecution(sb.state, body(p) as never, ''));
}
const execInProcessMs = performance.now() - t;
await sb.close();

const rate = (n: number, ms: number) => Math.round((n * 1000) / ms);
console.log(`ledger filled with ${UPDATES} updates in ${fillMs.toFixed(0)} ms (${rate(UPDATES, fillMs)}/s)`);
console.log(
  `flats over HTTP: ${streamed} updates in ${httpMs.toFixed(0)} ms = ${rate(streamed, httpMs)} updates/s; ` +
    `baseline in-process render: ${rate(rendered, inProcessMs)} updates/s; ratio ${(inProcessMs / httpMs).toFixed(3)}`,
);
console.log(
  `executeAndWait over HTTP: ${EXECUTES} in ${execHttpMs.toFixed(0)} ms = ${rate(EXECUTES, execHttpMs)} executes/s; ` +
    `baseline in-process verify+commit: ${rate(EXECUTES, execInProcessMs)}/s; ratio ${(execInProcessMs / execHttpMs).toFixed(3)}`,
);
console.log(`heap used: ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MiB`);
