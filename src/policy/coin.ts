// The sandbox's built-in coin templates, declared here by name (src/policy never imports src/sandbox): which
// choices move an amount and which argument field names the party that receives it.

export const COIN_PACKAGE_NAME = 'quill-coin';
export const COIN_MODULE = 'Quill.Coin';

/** Choice name → the argument fields holding the receiving party and the amount. */
export const COIN_TRANSFER_CHOICES: Readonly<Record<string, { receiver: string; amount: string }>> = {
  Holding_Transfer: { receiver: 'receiver', amount: 'amount' },
  Holding_CreateTransferInstruction: { receiver: 'receiver', amount: 'amount' },
  CoinRules_DevNet_Tap: { receiver: 'receiver', amount: 'amount' },
  CoinRules_Mint: { receiver: 'owner', amount: 'amount' },
};
