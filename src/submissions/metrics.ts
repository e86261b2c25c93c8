// Prometheus metrics of the pipeline, registered in the process's registry (src/metrics.ts).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { SubmissionRecord, SubmissionStatus } from './record.ts';

export interface PipelineMetrics {
  accepted: Counter<'outcome'>;
  signed: Counter<'algorithm'>;
  refused: Counter<'code'>;
  attempts: Counter<'outcome'>;
  committed: Counter;
  rejected: Counter;
  expired: Counter;
  acceptSeconds: Histogram;
  executeSeconds: Histogram<'outcome'>;
  commitLatencySeconds: Histogram;
  /** Approval decisions by decision (approve | reject), issue 15. */
  approvalDecisions?: Counter<'decision'>;
  /** From accept to the approval that reached the quorum. */
  timeToQuorum?: Histogram;
}

export function createMetrics(registry: Registry): PipelineMetrics {
  const r = [registry];
  return {
    approvalDecisions: new Counter({
      name: 'quill_approval_decisions_total',
      help: 'Approval decisions recorded, by decision (approve | reject)',
      labelNames: ['decision'],
      registers: r,
    }),
    timeToQuorum: new Histogram({
      name: 'quill_approval_time_to_quorum_seconds',
      help: 'Time from accepting a submission that needs approval to the approval that reached its quorum',
      buckets: [1, 10, 60, 300, 900, 3600, 4 * 3600, 24 * 3600],
      registers: r,
    }),
    accepted: new Counter({
      name: 'quill_submissions_accepted_total',
      help: 'Submissions accepted (outcome=new) or answered from an earlier identical request (outcome=replay)',
      labelNames: ['outcome'],
      registers: r,
    }),
    signed: new Counter({
      name: 'quill_signatures_total',
      help: 'Signatures made for accepted submissions',
      labelNames: ['algorithm'],
      registers: r,
    }),
    refused: new Counter({
      name: 'quill_submissions_refused_total',
      help: 'Submissions refused at accept time, by error code (nothing signed)',
      labelNames: ['code'],
      registers: r,
    }),
    attempts: new Counter({
      name: 'quill_submission_attempts_total',
      help: 'executeAndWaitForTransaction attempts by classified outcome',
      labelNames: ['outcome'],
      registers: r,
    }),
    committed: new Counter({
      name: 'quill_submissions_committed_total',
      help: 'Submissions committed',
      registers: r,
    }),
    rejected: new Counter({
      name: 'quill_submissions_rejected_total',
      help: 'Submissions definitely rejected',
      registers: r,
    }),
    expired: new Counter({
      name: 'quill_submissions_expired_total',
      help: 'Submissions expired (max record time passed or attempts spent)',
      registers: r,
    }),
    acceptSeconds: new Histogram({
      name: 'quill_accept_duration_seconds',
      help: 'Time to accept a submission (decode, hash, sign, store, enqueue)',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers: r,
    }),
    executeSeconds: new Histogram({
      name: 'quill_ledger_execute_duration_seconds',
      help: 'Duration of executeAndWaitForTransaction calls by outcome',
      labelNames: ['outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: r,
    }),
    commitLatencySeconds: new Histogram({
      name: 'quill_commit_latency_seconds',
      help: 'From acceptance to the committed record',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: r,
    }),
  };
}

/**
 * Gauges read at scrape time: records per status (all processes see the same Redis) and the queue's jobs
 * per state, so a growing backlog or a pile of OUTCOME_UNKNOWN submissions shows up on a dashboard.
 */
export function watchBacklog(
  registry: Registry,
  sources: {
    statuses: () => Promise<Record<string, number>>;
    jobs: () => Promise<Record<string, number>>;
    /** The oldest created records in an open status (at most `limit`), for their age and deadlines. */
    oldest?: (status: SubmissionStatus, limit: number) => Promise<SubmissionRecord[]>;
    /** When the job that has waited longest became ready to run (ms), if any job waits. */
    oldestJob?: () => Promise<number | undefined>;
  },
): void {
  const gauge = (name: string, help: string, label: string, read: () => Promise<Record<string, number>>) =>
    new Gauge({
      name,
      help,
      labelNames: [label],
      registers: [registry],
      async collect() {
        try {
          for (const [k, v] of Object.entries(await read())) this.set({ [label]: k }, v);
        } catch {
          // Redis unreachable: /readyz says so; the scrape still answers with the other metrics.
        }
      },
    });
  gauge('quill_submissions', 'Submission records by status', 'status', sources.statuses);
  gauge('quill_queue_jobs', 'Jobs of the submissions queue by state', 'state', sources.jobs);
  new Gauge({
    name: 'quill_approvals_pending',
    help: 'Submissions awaiting approval (held unsigned by the approval policy)',
    registers: [registry],
    async collect() {
      try {
        this.set((await sources.statuses()).awaiting_approval ?? 0);
      } catch {
        // Redis unreachable: as above.
      }
    },
  });
  const { oldest, oldestJob } = sources;
  if (oldest) {
    // A count per status cannot tell a steady flow through `executing` from one record stuck there: the age of
    // the longest-unchanged record can. Read from the oldest created of each status (its index is in creation
    // order), so a scrape costs a few reads whatever the backlog.
    new Gauge({
      name: 'quill_submissions_oldest_seconds',
      help: 'Seconds since the least recently changed of the 50 oldest records in an open status last changed (0: none)',
      labelNames: ['status'],
      registers: [registry],
      async collect() {
        const now = Date.now();
        for (const status of OPEN_STATUSES) {
          try {
            const recs = await oldest(status, 50);
            const ages = recs.map((r) => Math.max(0, (now - Date.parse(r.updatedAt)) / 1000));
            this.set({ status }, ages.length ? Math.max(...ages) : 0);
          } catch {
            // Redis unreachable: quill_redis_up says so.
          }
        }
      },
    });
    // Approvals after their deadline are refused and the record expires: warn the approvers' operators before.
    new Gauge({
      name: 'quill_approvals_expiring',
      help: 'Submissions awaiting approval (of the 500 oldest) whose approval deadline falls within the window',
      labelNames: ['within'],
      registers: [registry],
      async collect() {
        try {
          const now = Date.now();
          const left = (await oldest('awaiting_approval', 500))
            .map((r) => (r.approval?.deadline ? Date.parse(r.approval.deadline) - now : Number.NaN))
            .filter((ms) => ms > 0);
          for (const [within, ms] of APPROVAL_WINDOWS)
            this.set({ within }, left.filter((l) => l <= ms).length);
        } catch {
          // Redis unreachable: as above.
        }
      },
    });
  }
  if (oldestJob) {
    // Jobs waiting with no worker taking them (workers down, or all busy): the queue's age, not its length.
    new Gauge({
      name: 'quill_queue_oldest_waiting_seconds',
      help: 'Seconds the longest-waiting job of the submissions queue has been ready to run (0: none waits)',
      registers: [registry],
      async collect() {
        try {
          const at = await oldestJob();
          this.set(at === undefined ? 0 : Math.max(0, (Date.now() - at) / 1000));
        } catch {
          // Redis unreachable: as above.
        }
      },
    });
  }
}

/** The statuses a record leaves by itself (the final ones never change). */
const OPEN_STATUSES: SubmissionStatus[] = [
  'awaiting_approval',
  'awaiting_signatures',
  'accepted',
  'queued',
  'executing',
];
const APPROVAL_WINDOWS: [string, number][] = [
  ['15m', 15 * 60_000],
  ['1h', 3600_000],
  ['24h', 24 * 3600_000],
];
