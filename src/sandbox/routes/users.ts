/** User management: create, list, get, delete, PATCH (field mask), rights grant/revoke/list, authenticated user. */
import {
  CreateUserRequest,
  GrantUserRightsRequest,
  RevokeUserRightsRequest,
  UpdateUserRequest,
} from '../../ledger/index.ts';
import { isAdmin, requireAdmin, requireIdpAdmin } from '../auth.ts';
import { err, SandboxError } from '../errors.ts';
import { rightFromJson, rightJson, type UserRight, userJson } from '../state/index.ts';
import { type App, type Ctx, caller, param, readJson, type Services } from './http.ts';

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

  app.get('/v2/authenticated-user', (c) => {
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

  app.post('/v2/users', async (c) => {
    const body = await readJson(c, CreateUserRequest);
    requireIdpAdmin(caller(c), body.user.identityProviderId ?? '');
    if (!USER_ID.test(body.user.id))
      throw err.invalidField('user.id', `"${body.user.id.slice(0, 40)}" is not a valid user id`);
    const user = users.create(body.user, rightsOf(body.rights));
    return c.json({ user: userJson(user) });
  });

  app.get('/v2/users', (c) => {
    requireAdmin(caller(c));
    return c.json({ users: users.list().map(userJson), nextPageToken: '' });
  });

  app.get('/v2/users/:userId', (c) => {
    const id = param(c, 'userId');
    requireSelfOrAdmin(c, id);
    return c.json({ user: userJson(users.require(id)) });
  });

  app.delete('/v2/users/:userId', (c) => {
    requireAdmin(caller(c));
    users.delete(param(c, 'userId'));
    return c.json({});
  });

  app.patch('/v2/users/:userId', async (c) => {
    const id = param(c, 'userId');
    const body = await readJson(c, UpdateUserRequest);
    requireIdpAdmin(caller(c), body.user.identityProviderId ?? users.get(id)?.identityProviderId ?? '');
    if (body.user.id !== id) throw err.invalidArgument(`${id} does not match user in body`);
    const user = users.update(body.user, body.updateMask.paths ?? []);
    return c.json({ user: userJson(user) });
  });

  app.post('/v2/users/:userId/rights', async (c) => {
    const id = param(c, 'userId');
    const body = await readJson(c, GrantUserRightsRequest);
    requireIdpAdmin(caller(c), body.identityProviderId ?? '');
    if (body.userId !== '' && body.userId !== id)
      throw err.invalidArgument(`${id} does not match userId in body`);
    const added = users.grant(id, rightsOf(body.rights));
    return c.json({ newlyGrantedRights: added.map(rightJson) });
  });

  app.patch('/v2/users/:userId/rights', async (c) => {
    const id = param(c, 'userId');
    const body = await readJson(c, RevokeUserRightsRequest);
    requireIdpAdmin(caller(c), body.identityProviderId ?? '');
    if (body.userId !== '' && body.userId !== id)
      throw err.invalidArgument(`${id} does not match userId in body`);
    const removed = users.revoke(id, rightsOf(body.rights));
    return c.json({ newlyRevokedRights: removed.map(rightJson) });
  });

  app.get('/v2/users/:userId/rights', (c) => {
    const id = param(c, 'userId');
    requireSelfOrAdmin(c, id);
    return c.json({ rights: users.require(id).rights.map(rightJson) });
  });
}
