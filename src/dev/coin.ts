// The embedded sandbox's demo coin as holding recognizers, data like any registry's (issue 27): a `Holding
// {operator, owner, amount}`, and a `TransferInstruction {operator, sender, receiver, amount, description}` that
// holds the sender's amount locked until the receiver accepts or rejects it or the sender withdraws it.
import type { AssetRecognizers } from '../policy/index.ts';

/** The instrument id the coin's holdings carry; the admin is the coin's operator. */
export const COIN_INSTRUMENT_ID = 'QuillCoin';

/** `pkg` and `module`: the sandbox's COIN_PACKAGE and COIN_MODULE. */
export function coinRecognizers(pkg: string, module: string): AssetRecognizers {
  const instrument = `=${COIN_INSTRUMENT_ID}`;
  return {
    holdings: [
      {
        template: `#${pkg}:${module}:Holding`,
        owner: 'owner',
        amount: 'amount',
        admin: 'operator',
        instrument,
      },
      {
        template: `#${pkg}:${module}:TransferInstruction`,
        owner: 'sender',
        amount: 'amount',
        admin: 'operator',
        instrument,
        lock: '=true',
      },
    ],
  };
}
