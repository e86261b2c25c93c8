// What the console needs beyond the wallet API it calls in process.
import type { Redis } from 'ioredis';
import type { Log } from '../log.ts';
import type { SessionStore } from './sessions.ts';

/** OIDC sign-in (authorization code + PKCE): the client, and which claims carry the role and the party. */
export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** A claim holding `read`, `approve`, `submit` or `admin` (or a list of them: the highest counts). */
  roleClaim: string;
  /** A claim holding the party the operator is scoped to; absent: every party (empty or not text: refused). */
  partyClaim: string;
  /** An ID token without the party claim signs in for every party (true) or is refused (false). */
  allowUnscoped: boolean;
  scope: string;
}

export interface ConsoleDeps {
  sessions: SessionStore;
  redis: Redis;
  prefix: string;
  /** Signs and checks one-time sign-in links (AUTH_JWT_SECRET); absent: links are off. */
  linkSecret?: string;
  oidc?: OidcSettings;
  /** The console's public base URL (CONSOLE_PUBLIC_URL): https makes cookies Secure; OIDC redirects to it. */
  publicUrl?: string;
  /** Submissions per status (one party's, or all). */
  statusCounts(party?: string): Promise<Record<string, number>>;
  /** The queue's jobs per state. */
  jobCounts(): Promise<Record<string, number>>;
  /** Final outcomes since a time, from the event log, for the overview's chart. */
  outcomesSince(sinceMs: number, party?: string): Promise<{ type: string; at: string }[]>;
  log?: Log;
}
