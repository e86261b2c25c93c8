// What counts as moving an asset is data, not code: a table of recognizers the composition root supplies
// (`quill serve`: the generic rule below; the embedded sandbox adds its demo coin's; a token registry adds its
// own). Policy never names a package itself.

/** An exercise that moves an amount: which templates and choices, and which argument fields say to whom and how much. */
export interface TransferRecognizer {
  /**
   * A package-name qualified template id (`#pkg:Module:Entity`), a module prefix ending in `:` (`#pkg:Module:`), or
   * `*` for any template.
   */
  template: string;
  /** The choice name, or `*` for any choice. */
  choice: string;
  /** The choice-argument field holding the receiving party. */
  receiver: string;
  /** The choice-argument field holding the amount (a decimal string). */
  amount: string;
}

/** A contract that holds an amount for an owner: which template, and which create-argument fields. */
export interface HoldingRecognizer {
  packageName: string;
  module: string;
  entity: string;
  owner: string;
  amount: string;
}

export interface AssetRecognizers {
  /** First match wins: list specific recognizers before general ones. */
  transfers: readonly TransferRecognizer[];
  holdings: readonly HoldingRecognizer[];
}

/** Any choice whose argument has a `receiver` party and a decimal `amount`: what Quill assumes without better data. */
export const GENERIC_TRANSFER: TransferRecognizer = {
  template: '*',
  choice: '*',
  receiver: 'receiver',
  amount: 'amount',
};

/** The recognizers `quill serve` starts with: the generic transfer rule, no known holdings. */
export const DEFAULT_RECOGNIZERS: AssetRecognizers = { transfers: [GENERIC_TRANSFER], holdings: [] };

/** The first transfer recognizer for an exercise of `choice` on `template` (package-name qualified). */
export function transferRecognizer(
  table: readonly TransferRecognizer[],
  template: string,
  choice: string,
): TransferRecognizer | undefined {
  return table.find(
    (r) =>
      (r.choice === '*' || r.choice === choice) &&
      (r.template === '*' ||
        r.template === template ||
        (r.template.endsWith(':') && template.startsWith(r.template))),
  );
}
