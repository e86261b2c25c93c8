// What a submission's error code means and what to do next, in plain words, once for every reader (the API's
// timeline, the console). Codes are the ledger's (reference/ledger-json-api.md) and Quill's own (record.ts).
import type { ErrorInfo, SubmissionRecord } from './record.ts';

export interface Explanation {
  code: string;
  /** A few words: what happened. */
  title: string;
  /** Why, in a sentence or two, for someone who does not know the ledger's codes. */
  text: string;
  /** What to do now. */
  next: string;
}

type Words = Omit<Explanation, 'code'>;

const PREPARE_AGAIN =
  'Prepare the transaction again and submit the new preparation (for a transfer Quill prepared: "Prepare again"). ' +
  'Nothing of this one was committed.';

const SPENT: Words = {
  title: 'An input was already spent',
  text:
    'The ledger refused the transaction because a contract it uses (a holding it spends, an instruction it ' +
    'answers) was archived before it could commit: another transaction spent it first.',
  next: `${PREPARE_AGAIN} A new preparation picks holdings that are still active.`,
};

const TOO_LATE: Words = {
  title: 'Too late to commit',
  text:
    'The transaction can only commit until its max record time (or the preparation time plus the ' +
    "synchronizer's tolerance), and that time passed: the ledger will never accept these bytes.",
  next: PREPARE_AGAIN,
};

const TIME_DRIFT: Words = {
  title: "The transaction's times were out of bounds",
  text:
    "The ledger compared the transaction's ledger or preparation time with the time it was sequenced and found " +
    'them too far apart (a slow approval, a queue that waited, a clock that drifted).',
  next: `${PREPARE_AGAIN} Submit soon after preparing.`,
};

const CREDENTIALS: Words = {
  title: "The participant refused Quill's credentials",
  text: "The ledger answered that Quill's token is missing, expired or lacks the right to act as this party.",
  next: 'An operator fixes the LEDGER_* authentication settings (docs/configuration.md); then prepare again.',
};

const WORDS: Readonly<Record<string, Words>> = {
  LOCAL_VERDICT_INACTIVE_CONTRACTS: SPENT,
  CONTRACT_NOT_FOUND: SPENT,
  MAX_RECORD_TIME_PASSED: TOO_LATE,
  PREPARATION_TIME_TOLERANCE_PASSED: TOO_LATE,
  LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED: TOO_LATE,
  NOT_SEQUENCED_TIMEOUT: {
    title: 'Not sequenced in time',
    text: 'The synchronizer did not sequence the transaction before its deadline, so it did not commit.',
    next: PREPARE_AGAIN,
  },
  LOCAL_VERDICT_LEDGER_TIME_OUT_OF_BOUND: TIME_DRIFT,
  LOCAL_VERDICT_PREPARATION_TIME_OUT_OF_BOUND: TIME_DRIFT,
  OUTCOME_UNKNOWN: {
    title: 'Outcome not known yet',
    text:
      'An attempt reached the ledger but its answer never came. Quill sends nothing more and searches the ledger ' +
      'for the transaction until it can no longer commit; then the record ends committed or expired.',
    next:
      'Wait for it to end (an admin may "Search the ledger now"). Do not submit a new preparation of the same ' +
      'transfer meanwhile: both could commit.',
  },
  ATTEMPTS_EXHAUSTED: {
    title: 'No attempt went through',
    text: 'Every attempt Quill may make was refused with an answer that allowed a retry, and none committed.',
    next: `Read the attempts' errors below. ${PREPARE_AGAIN}`,
  },
  DUPLICATE_COMMAND: {
    title: 'Another transaction took this command id',
    text: 'A different transaction with the same command id committed first, so this one never will.',
    next: 'Open that update to see what it did; a new transfer needs a new command id.',
  },
  APPROVAL_REJECTED: {
    title: 'An approver rejected it',
    text: 'One rejection ends a submission awaiting approval; it was never signed.',
    next: "Read the approver's reason; if the transfer is still wanted, prepare a corrected one.",
  },
  APPROVAL_EXPIRED: {
    title: 'Approvals did not arrive in time',
    text: 'The approval deadline passed before the quorum approved; it was never signed.',
    next: 'Prepare it again and ask the approvers to decide before the new deadline.',
  },
  POLICY_CHANGED: {
    title: 'A new policy denied it while it waited',
    text: 'The approval policy changed while the submission awaited approval, and the new version denies it.',
    next: 'Read the policy version that ended it (Policy page); ask an admin if it should be allowed.',
  },
  SIGNATURES_MISSING: {
    title: 'Signatures did not arrive in time',
    text:
      'Its party signs with several keys and needs a threshold of them; Quill signed with the keys it holds, but ' +
      'the external key holders did not post enough signatures before the deadline. Nothing was sent to the ledger.',
    next: 'Prepare it again and ask the key holders (the console\'s "Sign" page) to sign before the new deadline.',
  },
  KEYS_ROTATED: {
    title: "The party's keys changed before it was sent",
    text:
      "The party's signing set changed (a topology update) after it was signed: the signatures by keys no longer " +
      "in the set were dropped, and Quill's keys still in it could not make up the threshold. Nothing was sent.",
    next: 'Prepare it again: it is then signed by the keys of the current set.',
  },
  KEY_DISABLED: {
    title: 'Its key was disabled',
    text: "The party's signing key was disabled before the transaction reached the ledger; nothing was sent with it.",
    next: 'Ask a key admin why the key was disabled; the party cannot transact until it has a usable key.',
  },
  LEDGER_UNAUTHENTICATED: CREDENTIALS,
  LEDGER_PERMISSION_DENIED: CREDENTIALS,
  DAML_AUTHORIZATION_ERROR: {
    title: 'Not authorized by the Daml model',
    text: "The transaction's actions need the authority of a party that did not sign it.",
    next: 'Prepare it with the right acting parties (actAs); the app that prepared it needs fixing.',
  },
  FAILED_TO_EXECUTE_TRANSACTION: {
    title: 'The Daml code refused it',
    text: 'Running the transaction on the ledger failed (an assertion, a missing contract, an arithmetic error).',
    next: 'Read the message for the failing check; prepare a transaction that meets it.',
  },
  INVALID_DEDUPLICATION_PERIOD: {
    title: 'The deduplication period was too long',
    text: 'The participant keeps deduplication data for less time than this submission asked for.',
    next: 'Lower DEDUP_MAX_SECONDS (or the deduplicationSeconds asked), then prepare again.',
  },
  UNEXPECTED_ERROR: {
    title: 'An unexpected failure',
    text: 'An attempt failed in a way Quill does not classify; it was treated as possibly committed.',
    next: 'Read the message; the ledger is searched before the record ends.',
  },
};

const AWAITING_SIGNATURES: Words = {
  title: 'Waiting for signatures',
  text:
    'Its party signs with several keys and needs a threshold of them. Quill signed with the keys it holds; the ' +
    'rest are held by others (external holders), who sign the hash and post their signatures.',
  next:
    'Each awaited holder opens its "Sign" page (or GET /wallet/v1/submissions/{id}/signatures), signs the hash ' +
    'with its key and posts the signature before the deadline; it is queued when the threshold is reached.',
};

/** The explanation of how a record ended (or why it waits), or undefined when it has no error. */
export function explain(
  rec: Pick<SubmissionRecord, 'error'> & Partial<Pick<SubmissionRecord, 'status'>>,
): Explanation | undefined {
  const error: ErrorInfo | null = rec.error;
  if (!error && rec.status === 'awaiting_signatures')
    return { code: 'AWAITING_SIGNATURES', ...AWAITING_SIGNATURES };
  if (!error) return undefined;
  const words = WORDS[error.code] ?? {
    title: `Refused: ${error.code}`,
    text: error.message,
    next: 'If the transaction is still wanted, prepare it again and submit the new preparation.',
  };
  return { code: error.code, ...words };
}

/** Whether the code says an input contract was spent (the timeline then names what spent it). */
export function spentInputs(error: ErrorInfo | null): boolean {
  return !!error && WORDS[error.code] === SPENT;
}
