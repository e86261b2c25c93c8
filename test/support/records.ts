// Submission records for store and decision tests.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { inject } from 'vitest';
import { newSubmissionId, type SubmissionRecord, SubmissionStore } from '../../src/submissions/index.ts';

export function record(over: Partial<SubmissionRecord> = {}): SubmissionRecord {
  const at = new Date().toISOString();
  return {
    id: newSubmissionId(),
    status: 'accepted',
    party: 'alice::1220ab',
    commandId: `cmd-${randomBytes(4).toString('hex')}`,
    userId: '',
    synchronizerId: 'sync::1',
    keyFingerprint: '1220ab',
    preparedTransactionHash: randomBytes(32).toString('hex'),
    hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
    maxRecordTime: null,
    requestedBy: 'tester',
    createdAt: at,
    updatedAt: at,
    attempts: [],
    updateId: null,
    completionOffset: null,
    transaction: null,
    error: null,
    reconcileFromOffset: null,
    canCommitUntil: null,
    reconciledThroughOffset: null,
    ...over,
  };
}

export const payload = { preparedTransaction: 'AA==', partySignatures: { signatures: [] } };

/** A store under a fresh key prefix of the test run's Redis. */
export function freshStore(redis: Redis): SubmissionStore {
  return new SubmissionStore(redis, `t-${randomBytes(4).toString('hex')}`);
}

export function testRedis(): Redis {
  return new Redis(inject('redisUrl'));
}
