/**
 * Sandbox-only administration (not part of the participant's API): faults, pause/resume, pruning, the
 * ledger clock, commit counters for exactly-once tests, and what a participant operator does out of band:
 * reassigning a contract between synchronizers (unassign, then assign) and changing a party's hosting.
 * Requires ParticipantAdmin when auth is on.
 */
import { z } from 'zod';
import { requireAdmin } from '../auth.ts';
import { err } from '../errors.ts';
import { type App, caller, readJson, type Services } from './http.ts';

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
}
