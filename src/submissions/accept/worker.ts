// One inspection thread: answers { id, result } or { id, error: { code, message } } for each request, in order.
import { parentPort, workerData } from 'node:worker_threads';
import type { HoldingRecognizer } from '../../policy/index.ts';
import { inspectPrepared } from './inspect.ts';
import type { InspectRequest, InspectResponse } from './pool.ts';

const port = parentPort;
if (!port) throw new Error('src/submissions/accept/worker.ts runs only as a worker thread');
/** The recognizer table, given once when the pool starts the thread. */
const holdings = (workerData as { holdings: HoldingRecognizer[] }).holdings;
port.on('message', (req: InspectRequest) => {
  let res: InspectResponse;
  try {
    // A function does not cross threads: the facts are computed here, on this thread, and sent as data.
    const { facts, ...result } = inspectPrepared(req.b64, req.scheme, holdings);
    let factsOf: { data?: unknown; error?: string };
    try {
      factsOf = { data: facts?.() };
    } catch (err) {
      factsOf = { error: err instanceof Error ? err.message : 'cannot read the transaction' };
    }
    res = { id: req.id, result, facts: factsOf };
  } catch (err) {
    const e = err as { code?: unknown; message?: unknown };
    res = {
      id: req.id,
      error: {
        code: typeof e.code === 'string' ? e.code : 'MALFORMED_PROTOBUF',
        message: typeof e.message === 'string' ? e.message : 'cannot decode',
      },
    };
  }
  port.postMessage(res);
});
