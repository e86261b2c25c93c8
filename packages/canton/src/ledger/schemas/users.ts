/**
 * Users and rights. `UpdateUserRequest` is proto-generated (relaxed codec). `FieldMask.paths` are proto
 * snake_case paths relative to User (`primary_party`, `is_deactivated`, `metadata`, `metadata.annotations`,
 * `metadata.resource_version`, `id`); the spec lists `unknownFields` as required, the decoder defaults it —
 * the client sends `{"fields":{}}` anyway so its requests also satisfy the spec.
 */
import { z } from 'zod';
import { Int32Input, ObjectMeta, opt, UnknownFieldSet, variant } from './common.ts';

export const User = z.object({
  /** Identifies the user; not modifiable. */
  id: z.string().min(1),
  primaryParty: opt(z.string()),
  isDeactivated: opt(z.boolean()),
  /** `resourceVersion` gives optimistic concurrency control. */
  metadata: opt(ObjectMeta),
  identityProviderId: opt(z.string()),
  primaryPartyAuthentication: opt(z.boolean()),
});
export type User = z.infer<typeof User>;

/** `unknownFields` defaults to `{"fields":{}}`: the spec requires it, the participant's decoder defaults it. */
export const FieldMask = z.object({
  paths: opt(z.array(z.string())),
  unknownFields: UnknownFieldSet.nullish().transform((v) => v ?? { fields: {} }),
});
export type FieldMask = z.infer<typeof FieldMask>;

/** Body of `PATCH /v2/users/{user-id}`; `user.id` must equal the path segment. */
/** Both required: optional here so that an absent one is the participant's MISSING_FIELD, not a decode failure. */
export const UpdateUserRequest = z.object({ user: opt(User), updateMask: opt(FieldMask) });
export type UpdateUserRequest = z.infer<typeof UpdateUserRequest>;
export const UpdateUserResponse = z.object({ user: User });
export type UpdateUserResponse = z.infer<typeof UpdateUserResponse>;

const PartyRight = z.object({ party: z.string() });
export const CanActAs1 = PartyRight;
export type CanActAs1 = z.infer<typeof CanActAs1>;
export const CanActAs = z.object({ value: CanActAs1 });
export type CanActAs = z.infer<typeof CanActAs>;
export const CanReadAs1 = PartyRight;
export type CanReadAs1 = z.infer<typeof CanReadAs1>;
export const CanReadAs = z.object({ value: CanReadAs1 });
export type CanReadAs = z.infer<typeof CanReadAs>;
export const CanExecuteAs1 = PartyRight;
export type CanExecuteAs1 = z.infer<typeof CanExecuteAs1>;
export const CanExecuteAs = z.object({ value: CanExecuteAs1 });
export type CanExecuteAs = z.infer<typeof CanExecuteAs>;
export const CanReadAsAnyParty = z.object({ value: z.object({}) });
export type CanReadAsAnyParty = z.infer<typeof CanReadAsAnyParty>;
export const CanExecuteAsAnyParty = z.object({ value: z.object({}) });
export type CanExecuteAsAnyParty = z.infer<typeof CanExecuteAsAnyParty>;
export const ParticipantAdmin = z.object({ value: z.object({}) });
export type ParticipantAdmin = z.infer<typeof ParticipantAdmin>;
export const IdentityProviderAdmin = z.object({ value: z.object({}) });
export type IdentityProviderAdmin = z.infer<typeof IdentityProviderAdmin>;

export const Kind = z.union([
  variant('CanActAs', CanActAs),
  variant('CanExecuteAs', CanExecuteAs),
  variant('CanExecuteAsAnyParty', CanExecuteAsAnyParty),
  variant('CanReadAs', CanReadAs),
  variant('CanReadAsAnyParty', CanReadAsAnyParty),
  variant('Empty', z.object({})),
  variant('IdentityProviderAdmin', IdentityProviderAdmin),
  variant('ParticipantAdmin', ParticipantAdmin),
]);
export type Kind = z.infer<typeof Kind>;

export const Right = z.object({ kind: opt(Kind) });
export type Right = z.infer<typeof Right>;

export const CreateUserRequest = z.object({ user: User, rights: opt(z.array(Right)) });
export type CreateUserRequest = z.infer<typeof CreateUserRequest>;
export const CreateUserResponse = z.object({ user: User });
export type CreateUserResponse = z.infer<typeof CreateUserResponse>;
/** `GET /v2/users/{user-id}` and `GET /v2/authenticated-user`. */
export const GetUserResponse = z.object({ user: User });
export type GetUserResponse = z.infer<typeof GetUserResponse>;
export const ListUsersResponse = z.object({ users: opt(z.array(User)), nextPageToken: opt(z.string()) });
export type ListUsersResponse = z.infer<typeof ListUsersResponse>;
/** `DELETE /v2/users/{user-id}` answers `{}`. */
/** Query of `GET /v2/users` (our name; the spec lists the parameters inline). */
export const ListUsersQuery = z.object({ pageSize: opt(Int32Input), pageToken: opt(z.string()) });
export type ListUsersQuery = z.infer<typeof ListUsersQuery>;

export const DeleteUserResponse = z.object({});
export type DeleteUserResponse = z.infer<typeof DeleteUserResponse>;

export const GrantUserRightsRequest = z.object({
  userId: z.string(),
  rights: opt(z.array(Right)),
  identityProviderId: opt(z.string()),
});
export type GrantUserRightsRequest = z.infer<typeof GrantUserRightsRequest>;
export const GrantUserRightsResponse = z.object({ newlyGrantedRights: opt(z.array(Right)) });
export type GrantUserRightsResponse = z.infer<typeof GrantUserRightsResponse>;
export const RevokeUserRightsRequest = z.object({
  userId: z.string(),
  rights: opt(z.array(Right)),
  identityProviderId: opt(z.string()),
});
export type RevokeUserRightsRequest = z.infer<typeof RevokeUserRightsRequest>;
export const RevokeUserRightsResponse = z.object({ newlyRevokedRights: opt(z.array(Right)) });
export type RevokeUserRightsResponse = z.infer<typeof RevokeUserRightsResponse>;
export const ListUserRightsResponse = z.object({ rights: opt(z.array(Right)) });
export type ListUserRightsResponse = z.infer<typeof ListUserRightsResponse>;
