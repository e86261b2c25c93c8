/**
 * Users and rights, with the participant's update rules: field-mask paths (proto snake_case), an immutable
 * id, optimistic concurrency on `metadata.resourceVersion`, annotation merge (empty value deletes a key).
 */
import { err } from '../errors.ts';
import type { RightKind, UserRecord, UserRight } from './types.ts';

const PARTY_RIGHTS: RightKind[] = ['CanActAs', 'CanReadAs', 'CanExecuteAs'];

export interface UserJson {
  id: string;
  primaryParty: string;
  isDeactivated: boolean;
  metadata: { resourceVersion: string; annotations: Record<string, string> };
  identityProviderId: string;
  primaryPartyAuthentication: boolean;
}

export interface UserInput {
  id: string;
  primaryParty?: string | null;
  isDeactivated?: boolean | null;
  metadata?: { resourceVersion?: string | null; annotations?: Record<string, string> | null } | null;
  identityProviderId?: string | null;
  primaryPartyAuthentication?: boolean | null;
}

export function userJson(u: UserRecord): UserJson {
  return {
    id: u.id,
    primaryParty: u.primaryParty,
    isDeactivated: u.isDeactivated,
    metadata: { resourceVersion: String(u.resourceVersion), annotations: { ...u.annotations } },
    identityProviderId: u.identityProviderId,
    primaryPartyAuthentication: u.primaryPartyAuthentication,
  };
}

/** Wire right `{kind: {CanActAs: {value: {party}}}}` → record; undefined for `Empty`/unknown kinds. */
export function rightFromJson(right: { kind?: unknown }): UserRight | undefined {
  const kind = right.kind;
  if (kind === null || typeof kind !== 'object') return undefined;
  const [name, body] = Object.entries(kind as Record<string, unknown>)[0] ?? [];
  if (name === undefined || name === 'Empty') return undefined;
  if (PARTY_RIGHTS.includes(name as RightKind)) {
    const party = (body as { value?: { party?: unknown } } | undefined)?.value?.party;
    if (typeof party !== 'string' || party.length === 0)
      throw err.invalidField('party', 'must be a non-empty party id');
    return { kind: name as RightKind, party };
  }
  if (
    ['ParticipantAdmin', 'IdentityProviderAdmin', 'CanReadAsAnyParty', 'CanExecuteAsAnyParty'].includes(name)
  ) {
    return { kind: name as RightKind };
  }
  throw err.invalidField('rights', `unknown right kind ${name.slice(0, 40)}`);
}

export function rightJson(r: UserRight): { kind: Record<string, { value: Record<string, string> }> } {
  return { kind: { [r.kind]: { value: r.party === undefined ? {} : { party: r.party } } } };
}

export function sameRight(a: UserRight, b: UserRight): boolean {
  return a.kind === b.kind && a.party === b.party;
}

export class UserStore {
  private readonly users = new Map<string, UserRecord>();

  get(id: string): UserRecord | undefined {
    return this.users.get(id);
  }

  require(id: string): UserRecord {
    const u = this.users.get(id);
    if (!u) throw err.userNotFound(id);
    return u;
  }

  list(): UserRecord[] {
    return [...this.users.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  create(input: UserInput, rights: UserRight[]): UserRecord {
    if (this.users.has(input.id)) throw err.userExists(input.id);
    const user: UserRecord = {
      id: input.id,
      primaryParty: input.primaryParty ?? '',
      isDeactivated: input.isDeactivated ?? false,
      annotations: cleanAnnotations(input.metadata?.annotations ?? {}),
      resourceVersion: 0,
      identityProviderId: input.identityProviderId ?? '',
      primaryPartyAuthentication: input.primaryPartyAuthentication ?? false,
      rights: [],
    };
    this.users.set(user.id, user);
    this.grant(user.id, rights);
    return user;
  }

  delete(id: string): void {
    if (!this.users.delete(id)) throw err.userNotFound(id);
  }

  /** Returns the rights that were not held before. */
  grant(id: string, rights: UserRight[]): UserRight[] {
    const user = this.require(id);
    const added: UserRight[] = [];
    for (const r of rights) {
      if (!user.rights.some((x) => sameRight(x, r)) && !added.some((x) => sameRight(x, r))) added.push(r);
    }
    user.rights.push(...added);
    return added;
  }

  revoke(id: string, rights: UserRight[]): UserRight[] {
    const user = this.require(id);
    const removed = user.rights.filter((x) => rights.some((r) => sameRight(x, r)));
    user.rights = user.rights.filter((x) => !removed.includes(x));
    return removed;
  }

  /** PATCH /v2/users/{id}: applies `paths` of `input` (already checked by the endpoint's rule) to the user. */
  update(input: UserInput, paths: readonly string[]): UserRecord {
    const id = input.id;
    const seen = new Set(paths);
    const user = this.require(id);
    const version = input.metadata?.resourceVersion;
    if (
      version !== undefined &&
      version !== null &&
      version !== '' &&
      Number(version) !== user.resourceVersion
    ) {
      throw err.concurrentUserUpdate(id);
    }
    if (seen.has('identity_provider_id') && (input.identityProviderId ?? '') !== user.identityProviderId) {
      throw err.invalidUserUpdateRequest(id, 'The identity provider id cannot be changed with an update');
    }
    let next = { ...user, annotations: { ...user.annotations } };
    for (const path of paths) {
      if (path === 'primary_party') next.primaryParty = input.primaryParty ?? '';
      else if (path === 'is_deactivated') next.isDeactivated = input.isDeactivated ?? false;
      else if (path === 'primary_party_authentication')
        next.primaryPartyAuthentication = input.primaryPartyAuthentication ?? false;
      else if (path === 'metadata' || path === 'metadata.annotations') {
        // Always merged (LocalAnnotationsUtils): an empty value deletes a key; there is no replace.
        next = {
          ...next,
          annotations: mergeAnnotations(next.annotations, input.metadata?.annotations ?? {}),
        };
      }
    }
    user.primaryParty = next.primaryParty;
    user.isDeactivated = next.isDeactivated;
    user.annotations = next.annotations;
    user.primaryPartyAuthentication = next.primaryPartyAuthentication;
    // The participant's store bumps the version on every successful update, a no-op included.
    user.resourceVersion += 1;
    return user;
  }
}

function cleanAnnotations(a: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(a).filter(([, v]) => v !== ''));
}

function mergeAnnotations(
  base: Record<string, string>,
  given: Record<string, string>,
): Record<string, string> {
  const out = { ...base };
  for (const [k, v] of Object.entries(given)) {
    if (v === '') delete out[k];
    else out[k] = v;
  }
  return out;
}
