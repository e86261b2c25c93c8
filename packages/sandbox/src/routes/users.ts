/** User management: create, list, get, delete, PATCH (field mask), rights grant/revoke/list, authenticated user. */
import { endpoints as E } from '@quill/canton/ledger';
import { isAdmin, permissionDenied, requireAdmin, requireIdpAdmin } from '../auth.ts';
import { err, type JsCantonErrorBody, SandboxError } from '../errors.ts';
import { rightFromJson, rightJson, type UserRight, userJson } from '../state/index.ts';
import { type App, type Ctx, caller, type Services, serve } from './http.ts';

function rightsOf(list: { kind?: unknown }[] | null | undefined): UserRight[] {
  return (list ?? []).map(rightFromJson).filter((r): r is UserRight => r !== undefined);
}

/** Own user, or an administrator. */
function requireSelfOrAdmin(c: Ctx, userId: string): void {
  const who = caller(c);
  if (who.wildcard || who.userId === userId || isAdmin(who)) return;
  throw permissionDenied('only administrators may read other users');
}

/**
 * An error the JSON layer builds itself (`JsCantonError.fromErrorCode`), never crossing gRPC: the body keeps
 * `definiteAnswer` and its context is the error's own (empty here), without the `category` and `tid` a decoded
 * gRPC status carries.
 */
class JsonLayerError extends SandboxError {
  override body(correlationId?: string): JsCantonErrorBody {
    const full = super.body(correlationId);
    return { ...full, context: { ...this.context } };
  }
}

/**
 * JsUserManagementService.updateUser (`unmatchedUserId`): the path's user id must be the body's `user.id`,
 * checked in the JSON layer before the gRPC call (so before its authorization and validation). Scala prints the
 * body's id as an Option: `None` when `user` is missing, `Some(x)` otherwise; the trailing space is theirs.
 */
function unmatchedUserId(pathId: string, bodyId: string | undefined): JsonLayerError {
  const shown = bodyId === undefined ? 'None' : `Some(${bodyId})`;
  return new JsonLayerError(
    'INVALID_ARGUMENT',
    8,
    `The submitted request has invalid arguments: ${pathId} does not match user in body: ${shown} `,
    {},
    [],
    false,
    undefined,
    true,
  );
}

const USER_ID = /^[a-z0-9@^$.!`\-#+'~_|:()]{1,128}$/i;

/**
 * As the participant's user management: a participant admin acts on any user; an identity provider admin acts
 * only as admin of the request's identity provider, and only on users of its own provider: any other user is
 * "not found" (it is invisible from that provider), whatever provider the request names.
 */
function requireUserAdmin(
  c: Ctx,
  requestIdp: string,
  target: { identityProviderId: string } | undefined,
  userId: string,
): void {
  const who = caller(c);
  if (isAdmin(who)) return;
  requireIdpAdmin(who, requestIdp);
  if (!target || target.identityProviderId !== (who.user?.identityProviderId ?? ''))
    throw err.userNotFound(userId);
}

/** ParticipantAdmin is granted and revoked by participant admins only, never by an identity provider admin. */
function refuseParticipantAdmin(c: Ctx, rights: readonly UserRight[]): void {
  if (!isAdmin(caller(c)) && rights.some((r) => r.kind === 'ParticipantAdmin')) {
    throw permissionDenied('only a participant administrator may grant or revoke ParticipantAdmin');
  }
}

export function userRoutes(app: App, { state }: Services): void {
  const users = state.users;

  serve(app, E.authenticatedUser, (c) => {
    const who = caller(c);
    if (who.userId === undefined) {
      throw new SandboxError(
        'INVALID_ARGUMENT',
        8,
        'The submitted request has invalid arguments: The submitted request is missing a user-id',
      );
    }
    return c.json({ user: userJson(users.require(who.userId)) });
  });

  serve(app, E.createUser, (c, { body }) => {
    requireIdpAdmin(caller(c), body.user.identityProviderId ?? '');
    refuseParticipantAdmin(c, rightsOf(body.rights));
    if (!USER_ID.test(body.user.id))
      throw err.invalidField('user.id', `"${body.user.id.slice(0, 40)}" is not a valid user id`);
    const user = users.create(body.user, rightsOf(body.rights));
    return c.json({ user: userJson(user) });
  });

  serve(app, E.listUsers, (c) => {
    requireAdmin(caller(c));
    return c.json({ users: users.list().map(userJson), nextPageToken: '' });
  });

  serve(app, E.getUser, (c, { params }) => {
    const id = params['user-id'];
    requireSelfOrAdmin(c, id);
    return c.json({ user: userJson(users.require(id)) });
  });

  serve(app, E.deleteUser, (c, { params }) => {
    requireAdmin(caller(c));
    users.delete(params['user-id']);
    return c.json({});
  });

  serve(
    app,
    E.updateUser,
    (c, { body, params }) => {
      // The rule refused a request without user or updateMask.
      const user = body.user!;
      const paths = body.updateMask!.paths ?? [];
      const deactivates = paths.includes('is_deactivated');
      if (deactivates && user.isDeactivated === true && caller(c).userId === params['user-id'])
        throw err.invalidArgument('Requesting user cannot self-deactivate');
      return c.json({ user: userJson(users.update(user, paths)) });
    },
    {
      authorize: (c, { body, params }) => {
        if (body.user?.id !== params['user-id']) throw unmatchedUserId(params['user-id'], body.user?.id);
        requireUserAdmin(
          c,
          body.user?.identityProviderId ?? '',
          users.get(params['user-id']),
          params['user-id'],
        );
      },
    },
  );

  const rightsAdmin = {
    authorize: (
      c: Ctx,
      {
        body,
        params,
      }: {
        body: { identityProviderId?: string | null; rights?: { kind?: unknown }[] | null };
        params: Record<string, string>;
      },
    ) => {
      const id = params['user-id'] ?? '';
      requireUserAdmin(c, body.identityProviderId ?? '', users.get(id), id);
      refuseParticipantAdmin(c, rightsOf(body.rights));
    },
  };
  serve(
    app,
    E.grantUserRights,
    (c, { body, params }) => {
      const added = users.grant(params['user-id'], rightsOf(body.rights));
      return c.json({ newlyGrantedRights: added.map(rightJson) });
    },
    rightsAdmin,
  );

  serve(
    app,
    E.revokeUserRights,
    (c, { body, params }) => {
      const removed = users.revoke(params['user-id'], rightsOf(body.rights));
      return c.json({ newlyRevokedRights: removed.map(rightJson) });
    },
    rightsAdmin,
  );

  serve(app, E.listUserRights, (c, { params }) => {
    const id = params['user-id'];
    requireSelfOrAdmin(c, id);
    return c.json({ rights: users.require(id).rights.map(rightJson) });
  });
}
