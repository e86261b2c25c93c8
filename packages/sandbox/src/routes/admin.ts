/**
 * Sandbox-only administration (not part of the participant's API): faults, pause/resume, pruning, the
 * ledger clock, commit counters for exactly-once tests, and what a participant operator does out of band:
 * reassigning a contract between synchronizers (unassign, then assign) and changing a party's hosting. Also
 * what `mintHolding`/`grantPreapproval` do in process, for clients of a sandbox in another process (benchmarks):
 * the registries, minting holdings, pre-approving a receiver. Requires ParticipantAdmin when auth is on.
 */
import { z } from 'zod';
import { requireAdmin } from '../auth.ts';
import { err } from '../errors.ts';
import { grantPreapproval, mintHolding } from '../registry/bootstrap.ts';
import { registryByKey } from '../registry/registries.ts';
import { type App, caller, readJson, type Services } from './http.ts';
import { registryBaseUrl } from './registry.ts';

const RegistryKey = z.enum(['amulet', 'usdq']);

const Tamper = z.strictObject({
  amount: z.string().min(1).optional(),
  receiver: z.string().min(1).optional(),
  appendCommands: z.array(z.unknown()).optional(),
  appendDisclosedContracts: z.array(z.unknown()).optional(),
});
const Rule = z.object({
  kind: z.enum([
    'latency',
    'unavailable',
    'timeout',
    'timeoutAfterCommit',
    'drop',
    'inFlight',
    'tamperPrepare',
  ]),
  endpoint: z.string().optional(),
  probability: z.number().min(0).max(1).optional(),
  times: z.number().int().min(0).optional(),
  latencyMs: z.number().int().min(0).max(600_000).optional(),
  answer: z.enum(['504', '503', 'drop']).optional(),
  tamper: Tamper.optional(),
});
export const FaultConfigSchema = z.object({
  rules: z
    .array(
      Rule.refine((r) => r.kind !== 'tamperPrepare' || r.tamper !== undefined, 'tamperPrepare needs tamper'),
    )
    .optional(),
  paused: z.boolean().optional(),
  seed: z.number().int().optional(),
});

export function adminRoutes(app: App, { state, faults }: Services): void {
  app.use('/admin/*', async (c, next) => {
    requireAdmin(caller(c));
    await next();
  });
  app.get('/admin/faults', (c) => c.json(faults.describe()));
  app.post('/admin/faults', async (c) => {
    faults.configure(await readJson(c, FaultConfigSchema));
    return c.json(faults.describe());
  });
  app.post('/admin/pause', (c) => {
    faults.setPaused(true);
    return c.json({ paused: true });
  });
  app.post('/admin/resume', (c) => {
    faults.setPaused(false);
    return c.json({ paused: false });
  });
  app.post('/admin/prune', async (c) => {
    const { offset } = await readJson(c, z.object({ offset: z.number().int() }));
    if (offset <= 0) throw err.nonPositiveOffset('offset', offset);
    if (offset > state.log.end) throw err.offsetAfterLedgerEnd('End', offset, state.log.end);
    state.prune(offset);
    return c.json({ participantPrunedUpToInclusive: state.log.prunedUpTo });
  });
  app.post('/admin/time', async (c) => {
    const { advanceMs } = await readJson(c, z.object({ advanceMs: z.number().int().min(0) }));
    state.clockOffsetMs += advanceMs;
    return c.json({ clockOffsetMs: state.clockOffsetMs });
  });
  app.get('/admin/commits', (c) => c.json({ commits: Object.fromEntries(state.commits) }));
  const reassigned = (r: { updateId: string; offset: number; reassignmentId: string }) => ({
    updateId: r.updateId,
    offset: r.offset,
    reassignmentId: r.reassignmentId,
  });
  app.post('/admin/unassign', async (c) => {
    const b = await readJson(
      c,
      z.object({
        contractId: z.string().min(1),
        target: z.string().min(1),
        submitter: z.string().default(''),
      }),
    );
    return c.json(reassigned(state.unassign(b.contractId, b.target, b.submitter)));
  });
  app.post('/admin/assign', async (c) => {
    const b = await readJson(
      c,
      z.object({ reassignmentId: z.string().min(1), submitter: z.string().default('') }),
    );
    return c.json(reassigned(state.assign(b.reassignmentId, b.submitter)));
  });
  app.post('/admin/hosting', async (c) => {
    const b = await readJson(
      c,
      z.object({
        partyId: z.string().min(1),
        synchronizerId: z.string().optional(),
        participantId: z.string().optional(),
        /** Unset or null revokes the hosting. */
        permission: z.enum(['SUBMISSION', 'CONFIRMATION', 'OBSERVATION']).nullish(),
      }),
    );
    const u = state.changeHosting(
      b.partyId,
      b.synchronizerId ?? state.defaultSynchronizer,
      b.participantId ?? state.participantId,
      b.permission ? `PARTICIPANT_PERMISSION_${b.permission}` : undefined,
    );
    return c.json({ updateId: u.updateId, offset: u.offset });
  });
  app.get('/admin/registries', (c) => {
    // The ledger's own origin: the registries' off-ledger API is served beside it (routes/registry.ts).
    const origin = new URL(c.req.url).origin;
    const view = (key: z.infer<typeof RegistryKey>) => {
      const reg = registryByKey(key)!;
      const admin = reg.admin(state);
      return {
        admin,
        instrumentId: { admin, id: reg.instrument.id },
        registryUrl: registryBaseUrl(origin, reg, admin),
        packageName: reg.packageName,
      };
    };
    return c.json({ amulet: view('amulet'), usdq: view('usdq') });
  });
  app.post('/admin/registries/:key/mint', async (c) => {
    const key = RegistryKey.safeParse(c.req.param('key'));
    if (!key.success) return c.json({ error: 'unknown registry: amulet or usdq' }, 404);
    const b = await readJson(
      c,
      z.object({
        owner: z.string().min(1),
        amount: z.string().regex(/^\d+(\.\d{1,10})?$/),
        count: z.number().int().min(1).max(10_000).default(1),
      }),
    );
    if (!state.parties.has(b.owner)) throw err.partyNotFound(b.owner);
    const contractIds = Array.from({ length: b.count }, () =>
      mintHolding(state, key.data, b.owner, b.amount),
    );
    return c.json({ contractIds });
  });
  app.post('/admin/registries/:key/preapprovals', async (c) => {
    const key = RegistryKey.safeParse(c.req.param('key'));
    if (!key.success) return c.json({ error: 'unknown registry: amulet or usdq' }, 404);
    const { receiver } = await readJson(c, z.object({ receiver: z.string().min(1) }));
    if (!state.parties.has(receiver)) throw err.partyNotFound(receiver);
    return c.json({ contractId: grantPreapproval(state, key.data, receiver) });
  });
}
