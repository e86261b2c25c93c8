/** User management: create, list, get, delete, PATCH (field mask), rights grant/revoke/list, authenticated user. */
import { endpoints as E } from '../../ledger/index.ts';
import { isAdmin, requireAdmin, requireIdpAdmin } from '../auth.ts';
import { err, SandboxError } from '../errors.ts';
import { rightFromJson, rightJson, type UserRight, userJson } from '../state/index.ts';
import { type App, type Ctx, caller, type Services, serve } from './http.ts';

function rightsOf(list: { kind?: unknown }[] | null | undefined): UserRight[] {
  return (list ?? []).map(rightFromJson).filter((r): r is UserRight => r !== undefined);
}

/** Own user, or an administrator. */
function requireSelfOrAdmin(c: Ctx, userId: string): void {
  const who = caller(c);
  if (who.wildcard || who.userId === userId || isAdmin(who)) return;
  throw err.permissionDenied('only administrators may read other users');
}

const USER_ID = /^[a-z0-9@^$.!`\-#+'~_|:()]{1,128}$/i;

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
    (c, { body }) => c.json({ user: userJson(users.update(body.user, body.updateMask.paths ?? [])) }),
    {
      authorize: (c, { body, params }) =>
        requireIdpAdmin(
          caller(c),
          body.user.identityProviderId ?? users.get(params['user-id'])?.identityProviderId ?? '',
        ),
    },
  );

  const rightsAdmin = {
    authorize: (c: Ctx, { body }: { body: { identityProviderId?: string | null } }) =>
      requireIdpAdmin(caller(c), body.identityProviderId ?? ''),
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
