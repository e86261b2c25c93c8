// Who is asking: a principal (subject, role, optional party scope), built once from a bearer token, a console
// sign-in link or an OIDC sign-in, and what its role allows.

export const ROLES = ['read', 'submit', 'approve', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** Built once at sign-in or token verification: `party` is a non-empty party id (scoped) or undefined (every party). */
export interface Principal {
  subject: string;
  role: Role;
  party: string | undefined;
}

/**
 * read < submit < admin and read < approve < admin: a submit token may read (its own party's) submissions but
 * not approve; an approve token may read and approve but not submit; admin may do everything.
 */
export const ROLE_LEVEL: Readonly<Record<Role, number>> = { read: 0, submit: 1, approve: 1, admin: 2 };

export function allows(have: Role, need: Role): boolean {
  return have === need || have === 'admin' || need === 'read';
}

/**
 * Idempotency keys are per tenant: subject and party together, so two tokens that share a subject but not a party
 * (or the reverse) never see each other's keys. The verifier refuses tokens without a subject.
 */
export function idempotencyScope(who: Principal): string {
  return JSON.stringify([who.subject, who.party ?? null]);
}
