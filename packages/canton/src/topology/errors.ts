// The one error type of the topology codec: MALFORMED for bytes that are not a topology transaction we can
// read, INVALID for a value we refuse to encode or hash. One line, bounded: messages may quote input.
import { QuillError } from '../errors.ts';

export type TopologyErrorCode = 'MALFORMED' | 'INVALID';

export class TopologyError extends QuillError<TopologyErrorCode> {
  override readonly name = 'TopologyError';

  constructor(code: TopologyErrorCode, message: string) {
    const flat = message.replace(/[\r\n\t]+/g, ' ');
    super(code, flat.length > 300 ? `${flat.slice(0, 297)}...` : flat);
  }
}

export function malformed(message: string): never {
  throw new TopologyError('MALFORMED', message);
}

export function invalid(message: string): never {
  throw new TopologyError('INVALID', message);
}
