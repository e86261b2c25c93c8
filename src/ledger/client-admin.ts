/**
 * Version, state, party and user endpoints of the ledger client (the parts the sandbox and the official SDK
 * need besides the submission path). `LedgerClient` extends this class.
 */
import type { z } from 'zod';
import { LedgerClientBase } from './client-base.ts';
import { invalidArgument } from './errors.ts';
import type { CallOptions } from './http.ts';
import { checkUpdateUserRequest } from './rules.ts';
import * as S from './schemas/index.ts';

type In<T extends z.ZodType> = z.input<T>;

const EMPTY_FIELDS = { fields: {} };

export class LedgerAdminClient extends LedgerClientBase {
  // --- version and state ---------------------------------------------------------------------------

  async version(opts?: CallOptions): Promise<S.GetLedgerApiVersionResponse> {
    return this.call({ method: 'GET', path: '/v2/version', response: S.GetLedgerApiVersionResponse }, opts);
  }

  async ledgerEnd(opts?: CallOptions): Promise<S.GetLedgerEndResponse> {
    return this.call({ method: 'GET', path: '/v2/state/ledger-end', response: S.GetLedgerEndResponse }, opts);
  }

  /** The ledger end as a number (0 on an empty ledger). */
  async ledgerEndOffset(opts?: CallOptions): Promise<number> {
    return (await this.ledgerEnd(opts)).offset ?? 0;
  }

  async latestPrunedOffsets(opts?: CallOptions): Promise<S.GetLatestPrunedOffsetsResponse> {
    return this.call(
      { method: 'GET', path: '/v2/state/latest-pruned-offsets', response: S.GetLatestPrunedOffsetsResponse },
      opts,
    );
  }

  async connectedSynchronizers(
    query: { party?: string; participantId?: string; identityProviderId?: string } = {},
    opts?: CallOptions,
  ): Promise<S.GetConnectedSynchronizersResponse> {
    return this.call(
      {
        method: 'GET',
        path: '/v2/state/connected-synchronizers',
        query,
        response: S.GetConnectedSynchronizersResponse,
      },
      opts,
    );
  }

  // --- parties -------------------------------------------------------------------------------------

  async generateExternalPartyTopology(
    body: In<typeof S.GenerateExternalPartyTopologyRequest>,
    opts?: CallOptions,
  ): Promise<S.GenerateExternalPartyTopologyResponse> {
    const what = 'POST /v2/parties/external/generate-topology';
    const req = this.body(S.GenerateExternalPartyTopologyRequest, body, what);
    return this.call(
      {
        method: 'POST',
        path: '/v2/parties/external/generate-topology',
        body: req,
        response: S.GenerateExternalPartyTopologyResponse,
      },
      opts,
    );
  }

  async allocateExternalParty(
    body: In<typeof S.AllocateExternalPartyRequest>,
    opts?: CallOptions,
  ): Promise<S.AllocateExternalPartyResponse> {
    const what = 'POST /v2/parties/external/allocate';
    const req = this.body(S.AllocateExternalPartyRequest, body, what);
    return this.call(
      {
        method: 'POST',
        path: '/v2/parties/external/allocate',
        body: req,
        response: S.AllocateExternalPartyResponse,
      },
      opts,
    );
  }

  async listParties(
    query: { pageSize?: number; pageToken?: string; filterParty?: string; identityProviderId?: string } = {},
    opts?: CallOptions,
  ): Promise<S.ListKnownPartiesResponse> {
    const q = {
      pageSize: query.pageSize,
      pageToken: query.pageToken,
      'filter-party': query.filterParty,
      'identity-provider-id': query.identityProviderId,
    };
    return this.call(
      { method: 'GET', path: '/v2/parties', query: q, response: S.ListKnownPartiesResponse },
      opts,
    );
  }

  async getParty(party: string, opts?: CallOptions): Promise<S.GetPartiesResponse> {
    if (!party) throw invalidArgument('GET /v2/parties/{party}: party must not be empty');
    return this.call(
      { method: 'GET', path: `/v2/parties/${encodeURIComponent(party)}`, response: S.GetPartiesResponse },
      opts,
    );
  }

  async participantId(opts?: CallOptions): Promise<S.GetParticipantIdResponse> {
    return this.call(
      { method: 'GET', path: '/v2/parties/participant-id', response: S.GetParticipantIdResponse },
      opts,
    );
  }

  // --- users ---------------------------------------------------------------------------------------

  async authenticatedUser(opts?: CallOptions): Promise<S.GetUserResponse> {
    return this.call({ method: 'GET', path: '/v2/authenticated-user', response: S.GetUserResponse }, opts);
  }

  async createUser(body: In<typeof S.CreateUserRequest>, opts?: CallOptions): Promise<S.CreateUserResponse> {
    const req = this.body(S.CreateUserRequest, body, 'POST /v2/users');
    return this.call({ method: 'POST', path: '/v2/users', body: req, response: S.CreateUserResponse }, opts);
  }

  async listUsers(
    query: { pageSize?: number; pageToken?: string } = {},
    opts?: CallOptions,
  ): Promise<S.ListUsersResponse> {
    return this.call(
      { method: 'GET', path: '/v2/users', query: { ...query }, response: S.ListUsersResponse },
      opts,
    );
  }

  async getUser(userId: string, opts?: CallOptions): Promise<S.GetUserResponse> {
    return this.call({ method: 'GET', path: this.userPath(userId, ''), response: S.GetUserResponse }, opts);
  }

  async deleteUser(userId: string, opts?: CallOptions): Promise<S.DeleteUserResponse> {
    return this.call(
      { method: 'DELETE', path: this.userPath(userId, ''), response: S.DeleteUserResponse },
      opts,
    );
  }

  /** `PATCH /v2/users/{user-id}`: `updateMask.paths` are proto snake_case paths (`primary_party`, …). */
  async updateUser(
    userId: string,
    body: In<typeof S.UpdateUserRequest>,
    opts?: CallOptions,
  ): Promise<S.UpdateUserResponse> {
    const what = 'PATCH /v2/users/{user-id}';
    const req = this.body(S.UpdateUserRequest, body, what);
    this.check(checkUpdateUserRequest(userId, req), what);
    // The spec lists unknownFields as required; the participant defaults it. Send it so both agree.
    const wire = {
      ...req,
      updateMask: { ...req.updateMask, unknownFields: req.updateMask.unknownFields ?? EMPTY_FIELDS },
    };
    return this.call(
      { method: 'PATCH', path: this.userPath(userId, ''), body: wire, response: S.UpdateUserResponse },
      opts,
    );
  }

  async listUserRights(userId: string, opts?: CallOptions): Promise<S.ListUserRightsResponse> {
    return this.call(
      { method: 'GET', path: this.userPath(userId, '/rights'), response: S.ListUserRightsResponse },
      opts,
    );
  }

  async grantUserRights(
    userId: string,
    body: Omit<In<typeof S.GrantUserRightsRequest>, 'userId'>,
    opts?: CallOptions,
  ): Promise<S.GrantUserRightsResponse> {
    const req = this.body(S.GrantUserRightsRequest, { ...body, userId }, 'POST /v2/users/{user-id}/rights');
    return this.call(
      {
        method: 'POST',
        path: this.userPath(userId, '/rights'),
        body: req,
        response: S.GrantUserRightsResponse,
      },
      opts,
    );
  }

  async revokeUserRights(
    userId: string,
    body: Omit<In<typeof S.RevokeUserRightsRequest>, 'userId'>,
    opts?: CallOptions,
  ): Promise<S.RevokeUserRightsResponse> {
    const req = this.body(S.RevokeUserRightsRequest, { ...body, userId }, 'PATCH /v2/users/{user-id}/rights');
    return this.call(
      {
        method: 'PATCH',
        path: this.userPath(userId, '/rights'),
        body: req,
        response: S.RevokeUserRightsResponse,
      },
      opts,
    );
  }

  protected userPath(userId: string, suffix: string): string {
    if (!userId) throw invalidArgument('user id must not be empty');
    return `/v2/users/${encodeURIComponent(userId)}${suffix}`;
  }
}
