export { ScanClient, type ScanClientOptions } from './client.ts';
export { formatDecimal10, parseDecimal10 } from './decimal.ts';
export * from './schemas.ts';
