/**
 * What a wallet on the sandbox needs to value the holdings of its registries from create arguments alone (in a
 * prepared transaction there are no interface views): one entry per holding template other than Amulet's (whose
 * mapping the wallet knows from splice), as dot paths into the create argument; a `=` prefix is a literal.
 */
export interface HoldingRecognizer {
  template: string;
  owner: string;
  amount: string;
  admin: string;
  instrument: string;
  lock?: string;
}

export const SANDBOX_RECOGNIZERS: { holdings: readonly HoldingRecognizer[] } = {
  holdings: [
    {
      template: '#quill-stablecoin:Quill.Stablecoin:Holding',
      owner: 'owner',
      amount: 'amount',
      admin: 'instrument.admin',
      instrument: 'instrument.id',
      lock: 'lock',
    },
    {
      template: '#quill-coin:Quill.Coin:Holding',
      owner: 'owner',
      amount: 'amount',
      admin: 'operator',
      instrument: '=QuillCoin',
    },
    {
      template: '#quill-coin:Quill.Coin:TransferInstruction',
      owner: 'sender',
      amount: 'amount',
      admin: 'operator',
      instrument: '=QuillCoin',
      lock: '=true',
    },
  ],
};
