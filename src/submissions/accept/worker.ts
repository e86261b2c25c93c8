// One inspection thread: answers { id, value } or { id, error: { code, message } } for each task, in order.
import { parentPort, workerData } from 'node:worker_threads';
import type { HoldingRecognizer } from '../../policy/index.ts';
import { inspectPrepared, parseBody, previewStored } from './inspect.ts';
import type { InspectRequest, InspectResponse, PoolAnswers } from './pool.ts';

const port = parentPort;
if (!port) throw new Error('src/submissions/accept/worker.ts runs only as a worker thread');
/** The recognizer table, given once when the pool starts the thread. */
const holdings = (workerData as { holdings: HoldingRecognizer[] }).holdings;

function run(req: InspectRequest): PoolAnswers[InspectRequest['kind']] {
  switch (req.kind) {
    case 'inspect': {
      // A function does not cross threads: the facts are computed here, on this thread, and sent as data.
      const { facts, ...result } = inspectPrepared(req.b64, req.scheme, holdings);
      try {
        return { result, facts: { data: facts?.() } };
      } catch (err) {
        return {
          result,
          facts: { error: err instanceof Error ? err.message : 'cannot read the transaction' },
        };
      }
    }
    case 'preview':
      return previewStored(req.b64, req.scheme, holdings);
    case 'json':
      return parseBody(req.bytes);
  }
}

port.on('message', (req: InspectRequest) => {
  let res: InspectResponse;
  try {
    res = { id: req.id, value: run(req) };
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
