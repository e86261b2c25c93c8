export * from './ledger.ts';
export * from './log.ts';
export * from './packages.ts';
export * from './types.ts';
export * from './users.ts';
