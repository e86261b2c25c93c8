/**
 * The registries' off-ledger HTTP API (token standard V1, splice `token-standard/splice-api-token-*-v1/openapi/`;
 * Scan's implementation `HttpTokenStandard{Metadata,TransferInstruction}Handler.scala`), served beside the ledger
 * without authentication, as Scan serves it.
 *
 * Routing — which registry a URL reaches (clients append the OpenAPI paths, `/registry/…`, to a registry's base URL):
 * - `/registry/…` and `/api/scan/registry/…`: the DSO's Amulet registry, as Scan serves it (base URL: the ledger's
 *   URL, or `<ledger>/api/scan`).
 * - `/api/token-standard/v0/registrars/<admin party>/registry/…`: the registry whose admin is that party — the
 *   stablecoin's `registrar`, or the DSO — in the form of Digital Asset's utility registry
 *   (`…/api/token-standard/v0/registrars/<admin>/registry/`); the party may be percent-encoded. An unknown admin is
 *   404.
 * Answers: 200 with the OpenAPI shapes; bad input 400, unknown instruments, instructions and routes 404, each as
 * `{error: string}` (ErrorResponse); never a 500 for a client's input.
 */
import type { Context } from 'hono';
import { createdEventBlob } from '../blob.ts';
import { formatAmount } from '../decimal.ts';
import { SandboxError } from '../errors.ts';
import { isoFromMicros, valueToJson } from '../lfjson.ts';
import { AMULET } from '../registry/amulet.ts';
import type { Registry } from '../registry/model.ts';
import { findPreapproval } from '../registry/model.ts';
import { REGISTRIES } from '../registry/registries.ts';
import { factoryTransferArgs } from '../registry/standard.ts';
import { v } from '../registry/values.ts';
import type { Contract, SandboxState } from '../state/index.ts';
import type { App } from './http.ts';

export const SCAN_REGISTRY_BASES = ['', '/api/scan'] as const;
export const REGISTRAR_BASE = '/api/token-standard/v0/registrars/:admin';

/** Whether a path belongs to the registries' API (served without authentication). */
export function isRegistryPath(path: string): boolean {
  return (
    path.startsWith('/registry/') ||
    path.startsWith('/api/scan/registry/') ||
    path.startsWith('/api/token-standard/')
  );
}

/** The base URL of a registry's API on a sandbox at `url` (clients append `/registry/…`). */
export function registryBaseUrl(url: string, reg: Registry, admin: string): string {
  return reg === AMULET ? url : `${url}/api/token-standard/v0/registrars/${encodeURIComponent(admin)}`;
}

class HttpError extends Error {
  constructor(
    readonly status: 400 | 404,
    message: string,
  ) {
    super(message);
  }
}

const SUPPORTED = {
  'splice-api-token-metadata-v1': 1,
  'splice-api-token-holding-v1': 1,
  'splice-api-token-transfer-instruction-v1': 1,
};

function instrumentJson(state: SandboxState, reg: Registry) {
  let supply = 0n;
  for (const c of state.contracts.values()) {
    if (c.archivedOffset !== undefined) continue;
    const h = reg.holdingOf(c);
    if (h) supply += h.amount;
  }
  return {
    id: reg.instrument.id,
    name: reg.instrument.name,
    symbol: reg.instrument.symbol,
    totalSupply: formatAmount(supply),
    totalSupplyAsOf: isoFromMicros(state.nowMicros()),
    decimals: 10,
    supportedApis: SUPPORTED,
  };
}

/** `DisclosedContract` of the registry API: package-id template id, the blob, the synchronizer; debug fields. */
function disclosed(c: Contract, debug: boolean) {
  return {
    templateId: c.templateId,
    contractId: c.contractId,
    createdEventBlob: createdEventBlob(c),
    synchronizerId: c.synchronizerId,
    ...(debug
      ? {
          debugPackageName: c.packageName,
          debugPayload: valueToJson(c.argument),
          debugCreatedAt: c.createdAt,
        }
      : {}),
  };
}

function choiceContext(
  values: Record<string, ReturnType<typeof v.variant>>,
  contracts: Contract[],
  debug: boolean,
) {
  return {
    choiceContextData: {
      values: Object.fromEntries(Object.entries(values).map(([k, x]) => [k, valueToJson(x)])),
    },
    disclosedContracts: contracts.map((c) => disclosed(c, debug)),
  };
}

async function body(c: Context): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'The request body is not valid JSON');
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    throw new HttpError(400, 'The request body must be a JSON object');
  return json as Record<string, unknown>;
}

function flag(x: unknown, name: string): boolean {
  if (x === undefined || x === null) return false;
  if (typeof x !== 'boolean') throw new HttpError(400, `${name} must be a boolean`);
  return x;
}

function active(state: SandboxState, cid: string | undefined): Contract | undefined {
  const c = cid === undefined ? undefined : state.contracts.get(cid);
  return c && c.archivedOffset === undefined && !c.unassigned ? c : undefined;
}

/** The transfer-factory answer (HttpTokenStandardTransferInstructionHandler.getTransferFactory). */
async function transferFactory(c: Context, state: SandboxState, reg: Registry) {
  const req = await body(c);
  const debug = !flag(req.excludeDebugFields, 'excludeDebugFields');
  if (req.choiceArguments === undefined) throw new HttpError(400, 'choiceArguments is required');
  let args: ReturnType<typeof factoryTransferArgs>;
  try {
    args = factoryTransferArgs(req.choiceArguments);
  } catch (e) {
    const why =
      e instanceof SandboxError ? e.cause_.replace(/^Command preprocessing failed: /, '') : 'invalid';
    throw new HttpError(400, `choiceArguments is not a TransferFactory_Transfer argument: ${why}`);
  }
  const t = args.transfer;
  const admin = reg.admin(state);
  if (t.instrumentId.admin !== admin || t.instrumentId.id !== reg.instrument.id)
    throw new HttpError(
      400,
      `Instrument ${t.instrumentId.admin}/${t.instrumentId.id} is not administered by this registry (${admin}/${reg.instrument.id})`,
    );
  const factory = reg.factory(state);
  if (!factory) throw new HttpError(404, 'No transfer factory');
  const context = reg.transferContext(state, t);
  const preapproval = t.receiver !== t.sender && findPreapproval(state, reg, t.receiver) !== undefined;
  return {
    factoryId: factory.contractId,
    transferKind: t.receiver === t.sender ? 'self' : preapproval ? 'direct' : 'offer',
    choiceContext: choiceContext(context.values, [factory, ...context.disclose], debug),
  };
}

/** Accept/reject/withdraw contexts (…getTransferInstruction{Accept,Reject,Withdraw}Context). */
async function instructionContext(
  c: Context,
  state: SandboxState,
  reg: Registry,
  cid: string,
  choice: string,
) {
  const req = await body(c);
  const debug = !flag(req.excludeDebugFields, 'excludeDebugFields');
  if (req.meta !== undefined && req.meta !== null) {
    const m = req.meta;
    if (typeof m !== 'object' || Array.isArray(m) || Object.values(m).some((x) => typeof x !== 'string'))
      throw new HttpError(400, 'meta must be a map of strings');
  }
  const instruction = active(state, cid);
  const facts = instruction ? reg.instructionOf(instruction) : undefined;
  if (!facts) throw new HttpError(404, `Transfer instruction not found: ${cid}`);
  const locked = active(state, facts.lockedHoldingCid);
  if (!locked) {
    // The lock expired and the holding was unlocked: nothing to accept; reject/withdraw only archive the instruction.
    if (choice === 'accept')
      throw new HttpError(404, `The locked holding ${facts.lockedHoldingCid} of ${cid} is no longer active`);
    return choiceContext(
      reg === AMULET ? { 'expire-lock': v.variant('AV_Bool', v.bool(false)) } : {},
      [],
      debug,
    );
  }
  if (reg === AMULET) {
    const rules = active(state, state.registries.get('amulet')?.contracts.rules);
    return choiceContext(
      {
        ...(rules ? { 'amulet-rules': v.variant('AV_ContractId', v.cid(rules.contractId)) } : {}),
        'expire-lock': v.variant('AV_Bool', v.bool(true)),
      },
      [...(rules ? [rules] : []), locked],
      debug,
    );
  }
  return choiceContext(
    { 'locked-holding': v.variant('AV_ContractId', v.cid(locked.contractId)) },
    [locked],
    debug,
  );
}

function instruments(c: Context, state: SandboxState, reg: Registry) {
  const size = c.req.query('pageSize');
  const token = c.req.query('pageToken');
  if (size !== undefined && !/^[1-9]\d{0,8}$/.test(size))
    throw new HttpError(400, 'pageSize must be a positive int32');
  const list = [instrumentJson(state, reg)];
  let start = 0;
  if (token !== undefined && token !== '') {
    const at = list.findIndex((i) => i.id === token);
    if (at < 0) throw new HttpError(400, `Invalid pageToken: ${token}`);
    start = at + 1;
  }
  const n = size === undefined ? 25 : Number(size);
  const page = list.slice(start, start + n);
  const next = start + n < list.length ? page[page.length - 1]?.id : undefined;
  return { instruments: page, ...(next ? { nextPageToken: next } : {}) };
}

/** Serves the API under `base` for the registry `pick` chooses from the request. */
function mount(app: App, state: SandboxState, base: string, pick: (c: Context) => Registry | undefined) {
  const handle =
    (run: (c: Context, reg: Registry) => unknown | Promise<unknown>) =>
    async (c: Context): Promise<Response> => {
      try {
        const reg = pick(c);
        if (!reg) throw new HttpError(404, 'No registry is administered by this party');
        return c.json(await run(c, reg));
      } catch (e) {
        if (e instanceof HttpError) return c.json({ error: e.message }, e.status);
        return c.json({ error: 'Internal error' }, 500);
      }
    };
  const p = `${base}/registry`;
  app.get(
    `${p}/metadata/v1/info`,
    handle((_c, reg) => ({
      adminId: reg.admin(state),
      supportedApis: { 'splice-api-token-metadata-v1': 1 },
    })),
  );
  app.get(
    `${p}/metadata/v1/instruments`,
    handle((c, reg) => instruments(c, state, reg)),
  );
  app.get(
    `${p}/metadata/v1/instruments/:instrumentId`,
    handle((c, reg) => {
      const id = c.req.param('instrumentId');
      if (id !== reg.instrument.id) throw new HttpError(404, `Instrument not found: ${id}`);
      return instrumentJson(state, reg);
    }),
  );
  app.post(
    `${p}/transfer-instruction/v1/transfer-factory`,
    handle((c, reg) => transferFactory(c, state, reg)),
  );
  app.post(
    `${p}/transfer-instruction/v1/:cid/choice-contexts/:choice`,
    handle((c, reg) => {
      const choice = c.req.param('choice') ?? '';
      if (!['accept', 'reject', 'withdraw'].includes(choice))
        throw new HttpError(404, `No such choice context: ${choice}`);
      return instructionContext(c, state, reg, c.req.param('cid') ?? '', choice);
    }),
  );
  app.all(
    `${p}/*`,
    handle(() => {
      throw new HttpError(404, 'The requested registry resource could not be found');
    }),
  );
}

function adminParam(c: Context): string {
  const raw = c.req.param('admin') ?? '';
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

export function registryRoutes(app: App, state: SandboxState): void {
  for (const base of SCAN_REGISTRY_BASES) mount(app, state, base, () => AMULET);
  mount(app, state, REGISTRAR_BASE, (c) => {
    const admin = adminParam(c);
    return REGISTRIES.find((r) => r.admin(state) === admin);
  });
}
