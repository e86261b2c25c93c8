/**
 * Shared plumbing of the ledger client classes: the transport, request parsing and client-side checks.
 * (The client is split over three files only to keep each file small.)
 */
import type { z } from 'zod';
import { invalidArgument } from './errors.ts';
import {
  type CallOptions,
  formatIssues,
  type HttpClientOptions,
  type HttpRequest,
  HttpTransport,
} from './http.ts';

export type LedgerClientOptions = HttpClientOptions;

export class LedgerClientBase {
  private readonly http: HttpTransport;

  constructor(opts: LedgerClientOptions) {
    this.http = new HttpTransport(opts);
  }

  protected call<T extends z.ZodType>(req: HttpRequest<T>, opts?: CallOptions): Promise<z.output<T>> {
    return this.http.call(req, opts);
  }

  /** Parses a request body with its schema; a failure is a client-side INVALID_ARGUMENT. */
  protected body<T extends z.ZodType>(schema: T, value: unknown, what: string): z.output<T> {
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw invalidArgument(`${what}: ${formatIssues(parsed.error)}`);
    return parsed.data;
  }

  protected check(problem: string | undefined, what: string): void {
    if (problem) throw invalidArgument(`${what}: ${problem}`);
  }
}
