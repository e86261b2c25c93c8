// `quill tx hash|inspect`: hash or preview a prepared transaction given as the participant's prepare response, base64
// text or raw bytes; the preview leads with what the transaction does to holdings, in sentences.

import { readFileSync } from 'node:fs';
import {
  decodePreparedTransaction,
  decodePreparedTransactionBase64,
  type HashingSchemeVersion,
  hashPreparedTransaction,
  type PreparedTransaction,
  previewPreparedTransaction,
} from '@quill/canton/transaction';
import { Command, Option } from 'commander';
import { CommandFailure, UsageError } from '../errors.ts';
import {
  assetMovements,
  DEFAULT_RECOGNIZERS,
  describeMovements,
  type HoldingRecognizer,
  nodeTree,
  parseRecognizers,
} from '../policy/index.ts';
import { printJson, readInput } from './support.ts';

const BASE64_TEXT = /^[A-Za-z0-9+/=\s]*$/;

function parseScheme(s: string): HashingSchemeVersion {
  const v = s.trim().toLowerCase();
  if (v === 'v2' || v === 'hashing_scheme_version_v2') return 'HASHING_SCHEME_VERSION_V2';
  if (v === 'v3' || v === 'hashing_scheme_version_v3') return 'HASHING_SCHEME_VERSION_V3';
  throw new UsageError(`unknown hashing scheme "${s}": use v2 or v3`);
}

/** What a file gives: the transaction, and from a prepare response the scheme and hash it names. */
interface TransactionInput {
  tx: PreparedTransaction;
  scheme?: HashingSchemeVersion;
  /** base64, as the participant answers it. */
  hash?: string;
}

/**
 * The participant's prepare response (JSON: preparedTransaction, hashingSchemeVersion, preparedTransactionHash;
 * other fields ignored), base64 text if the input is only base64 characters and whitespace, otherwise the raw
 * protobuf bytes. A TransactionError is bad input: exit 2 (src/cli/index.ts).
 */
function readTransaction(file: string | undefined): TransactionInput {
  const input = readInput(file);
  const text = input.toString('latin1');
  if (text.trimStart().startsWith('{')) return fromPrepareResponse(input.toString('utf8'));
  // Line-wrapped base64 (as the `base64` tool prints it) is accepted too.
  if (input.length > 0 && BASE64_TEXT.test(text))
    return { tx: decodePreparedTransactionBase64(text.replace(/\s+/g, '')) };
  return { tx: decodePreparedTransaction(new Uint8Array(input)) };
}

function fromPrepareResponse(text: string): TransactionInput {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UsageError('the input starts with "{" but is not JSON');
  }
  const r = json as Record<string, unknown>;
  if (typeof r.preparedTransaction !== 'string' || !BASE64_TEXT.test(r.preparedTransaction))
    throw new UsageError('the JSON input has no base64 preparedTransaction (a prepare response is expected)');
  const scheme = r.hashingSchemeVersion;
  const hash = r.preparedTransactionHash;
  return {
    tx: decodePreparedTransactionBase64(r.preparedTransaction.replace(/\s+/g, '')),
    ...(typeof scheme === 'string' && scheme !== '' ? { scheme: parseScheme(scheme) } : {}),
    ...(typeof hash === 'string' && hash !== '' ? { hash } : {}),
  };
}

/** --scheme if given, else the scheme the prepare response names, else V2. */
function schemeFor(input: TransactionInput, option: string | undefined): HashingSchemeVersion {
  return option !== undefined ? parseScheme(option) : (input.scheme ?? 'HASHING_SCHEME_VERSION_V2');
}

/**
 * A prepare response whose hash is not the recomputed one (under the scheme it names) must not be signed: exit 1
 * once the recomputed hash is printed.
 */
function checkClaimedHash(input: TransactionInput, scheme: HashingSchemeVersion, hash: Uint8Array): void {
  if (input.hash === undefined || (input.scheme !== undefined && input.scheme !== scheme)) return;
  if (input.hash === Buffer.from(hash).toString('base64') || input.hash === Buffer.from(hash).toString('hex'))
    return;
  throw new CommandFailure(
    "the prepare response's preparedTransactionHash is not the hash of its preparedTransaction: do not sign it",
  );
}

/** A recognizers file, or a usage error naming its first problem (exit 2). */
function readRecognizers(path: string): HoldingRecognizer[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(
      `--recognizers: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  const r = parseRecognizers(text);
  if ('holdings' in r) return r.holdings;
  const [first] = r.problems;
  throw new UsageError(`--recognizers: ${first?.path || '(document)'}: ${first?.message ?? 'invalid'}`);
}

const schemeOption = () =>
  new Option(
    '--scheme <scheme>',
    "hashing scheme: v2 or v3 (default: the prepare response's hashingSchemeVersion, else v2)",
  );

export function txCommand(): Command {
  const tx = new Command('tx').description(
    'Inspect and hash prepared transactions (base64 text or raw protobuf)',
  );
  tx.command('hash')
    .description('print the hash an external party signs, as lowercase hex')
    .argument('[file]', 'file with the prepared transaction, or - for standard input (default)')
    .addOption(schemeOption())
    .option('--json', 'print {"hash","hashBase64","hashingSchemeVersion"} as JSON')
    .action((file: string | undefined, opts: { scheme?: string; json?: boolean }) => {
      if (opts.scheme !== undefined) parseScheme(opts.scheme);
      const input = readTransaction(file);
      const scheme = schemeFor(input, opts.scheme);
      const hash = hashPreparedTransaction(input.tx, scheme);
      const hex = Buffer.from(hash).toString('hex');
      if (opts.json)
        printJson({
          hash: hex,
          hashBase64: Buffer.from(hash).toString('base64'),
          hashingSchemeVersion: scheme,
        });
      else process.stdout.write(`${hex}\n`);
      checkClaimedHash(input, scheme, hash);
    });
  tx.command('inspect')
    .description(
      'print what a signature would authorize, as JSON: one sentence per asset movement (summary), the node ' +
        'tree, the movements per instrument, then the decoded transaction',
    )
    .argument('[file]', 'file with the prepared transaction, or - for standard input (default)')
    .addOption(schemeOption())
    .option('--recognizers <file>', 'holding recognizers of further registries (the RECOGNIZERS_FILE format)')
    .action((file: string | undefined, opts: { scheme?: string; recognizers?: string }) => {
      if (opts.scheme !== undefined) parseScheme(opts.scheme);
      const holdings = [
        ...(opts.recognizers ? readRecognizers(opts.recognizers) : []),
        ...DEFAULT_RECOGNIZERS.holdings,
      ];
      const input = readTransaction(file);
      const scheme = schemeFor(input, opts.scheme);
      const preview = previewPreparedTransaction(input.tx, scheme);
      const movements = assetMovements(preview, holdings);
      printJson({ summary: describeMovements(movements), tree: nodeTree(preview), movements, ...preview });
      checkClaimedHash(input, scheme, Buffer.from(preview.hash, 'hex'));
    });
  return tx;
}
