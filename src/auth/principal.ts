// Who is asking: a principal (subject, role, optional party scope), built once from a bearer token, a console
// sign-in link or an OIDC sign-in, and what its role allows.

export const ROLES = ['read', 'submit', 'approve', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/**
 * Built once at sign-in or token verification: `party` is a non-empty party id (scoped) or undefined (every party).
 * `subject` is the principal's label in records and the audit (`oidc:<sub>` for console OIDC sessions); the
 * person behind it is `personName(subject)`.
 */
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

/** How the console labels OIDC operators (`oidc:<sub>`): a label, not another person. */
const OIDC_LABEL = 'oidc:';

/**
 * The person a principal's label (or a recorded one) names, one name wherever they sign in (issue 29): an API
 * token's `sub`, a sign-in link's subject and an OIDC session's `sub` are the same person when equal, whatever
 * issuer vouched for them. The deployment trusts only its own token secret or JWKS and its console's identity
 * provider, and tokens minted with AUTH_JWT_SECRET carry no issuer: qualifying names by issuer would keep alice's
 * two names apart. Two people may therefore not share a subject across those issuers.
 */
export function personName(label: string): string {
  return label.startsWith(OIDC_LABEL) ? label.slice(OIDC_LABEL.length) : label;
}

/** Whether two labels (a principal's, a record's, a group member's) name the same person. */
export function samePerson(a: string, b: string): boolean {
  return personName(a) === personName(b);
}
