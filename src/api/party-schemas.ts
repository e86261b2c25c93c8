// Wire shapes of the party routes: onboarding (one key, or M of N keys with a namespace key and other hosts),
// a party's keys and hosts, and a change of its keys.
import { z } from '@hono/zod-openapi';
import { FINGERPRINT_PATTERN, Signature } from '@quill/canton/ledger';

const Fingerprint = z
  .string()
  .regex(FINGERPRINT_PATTERN, { error: 'must be a key fingerprint (1220 + 64 hex)' });
const KeySpec = z.enum([
  'SIGNING_KEY_SPEC_EC_CURVE25519',
  'SIGNING_KEY_SPEC_EC_P256',
  'SIGNING_KEY_SPEC_EC_P384',
  'SIGNING_KEY_SPEC_EC_SECP256K1',
]);

export const KeyRef = z
  .union([
    z.object({ fingerprint: Fingerprint }).strict(),
    z
      .object({
        publicKey: z.string().min(1).max(400).openapi({ description: 'DER SubjectPublicKeyInfo, base64' }),
        keySpec: KeySpec,
        label: z.string().max(120).optional(),
      })
      .strict(),
  ])
  .openapi('KeyRef', {
    description: 'A key Quill holds, by fingerprint, or an external signer’s public key',
  });

const HostRequest = z
  .object({
    host: z.string().min(1).max(64).openapi({ description: 'a name LEDGER_HOSTS configures' }),
    permission: z.enum(['confirmation', 'observation']),
  })
  .strict();

const ProofSignatures = z.array(Signature).max(20).openapi({
  description: 'proof of possession by external keys, each over the topology hash they must sign',
});

export const NewPartyBody = z
  .object({
    partyHint: z.string().min(1).max(185),
    synchronizerId: z.string().min(1).max(512).optional(),
    keyFingerprint: Fingerprint.optional().openapi({
      description: 'a single-key party: this key is its namespace and its one signing key',
    }),
    signingKeys: z.array(KeyRef).min(1).max(20).optional().openapi({
      description: 'an M-of-N party: its protocol signing keys (with `threshold`)',
    }),
    threshold: z.number().int().min(1).max(20).optional(),
    namespaceKey: Fingerprint.optional().openapi({
      description:
        'the key that signs the party’s topology only (kept cold); unset = a new Ed25519 key is made for it',
    }),
    hosts: z.array(HostRequest).max(31).optional().openapi({ description: 'other hosting participants' }),
    confirmationThreshold: z.number().int().min(1).max(32).optional(),
    signatures: ProofSignatures.optional(),
  })
  .strict()
  .superRefine((b, ctx) => {
    const fail = (message: string) => ctx.addIssue({ code: 'custom', message, input: b });
    if ((b.keyFingerprint === undefined) === (b.signingKeys === undefined)) {
      fail('give either keyFingerprint (one key) or signingKeys with threshold (M of N)');
    }
    if (b.signingKeys !== undefined && b.threshold === undefined) fail('signingKeys needs a threshold');
    if (
      b.keyFingerprint !== undefined &&
      [b.threshold, b.namespaceKey, b.hosts, b.confirmationThreshold, b.signatures].some(
        (x) => x !== undefined,
      )
    ) {
      fail('threshold, namespaceKey, hosts, confirmationThreshold and signatures go with signingKeys');
    }
  })
  .openapi('NewPartyRequest');
export type NewPartyBody = z.infer<typeof NewPartyBody>;

export const PartyView = z
  .object({
    partyId: z.string(),
    keyFingerprint: z
      .string()
      .openapi({ description: 'the party’s namespace key (the fingerprint in its id)' }),
    synchronizerId: z.string(),
    layout: z.enum(['single', 'separate']).openapi({
      description:
        'single: the namespace key is the one signing key; separate: a cold namespace key and N keys',
    }),
    threshold: z.number().int(),
    signingKeys: z.array(
      z.object({
        fingerprint: z.string(),
        holder: z.enum(['quill', 'external']),
        label: z.string().nullable(),
      }),
    ),
    hosts: z.array(
      z.object({
        participantUid: z.string(),
        permission: z.enum(['confirmation', 'observation']),
        host: z.string().nullable(),
      }),
    ),
    confirmationThreshold: z.number().int().nullable(),
    serial: z.number().int(),
  })
  .openapi('Party');
export type PartyView = z.infer<typeof PartyView>;

export const PreparedPartyView = z
  .object({
    partyId: z.string(),
    synchronizerId: z.string(),
    transactions: z.array(z.string()).openapi({ description: 'base64, in the order they are sent' }),
    partyToParticipantHash: z
      .string()
      .openapi({ description: 'hex: what each signing key signs (proof of possession)' }),
    multiHash: z.string().openapi({ description: 'hex: what the namespace key signs' }),
    awaiting: z.array(z.string()).openapi({ description: 'external keys whose proof is still missing' }),
    hosts: PartyView.shape.hosts,
    confirmationThreshold: z.number().int(),
  })
  .openapi('PreparedParty');
export type PreparedPartyView = z.infer<typeof PreparedPartyView>;

export const KeyChangeBody = z
  .object({
    add: z.array(KeyRef).max(20).optional(),
    remove: z.array(Fingerprint).max(20).optional(),
    threshold: z.number().int().min(1).max(20).optional(),
    signatures: ProofSignatures.optional(),
    prepareOnly: z.boolean().optional().openapi({ description: 'build and return the change, send nothing' }),
  })
  .strict()
  .openapi('KeyChangeRequest');
export type KeyChangeBody = z.infer<typeof KeyChangeBody>;

export const KeyChangeView = z
  .object({
    party: PartyView.optional(),
    prepared: z
      .object({
        serial: z.number().int(),
        transaction: z.string(),
        hash: z.string().openapi({ description: 'hex: what the namespace key and every added key sign' }),
        awaiting: z.array(z.string()),
      })
      .optional(),
    added: z.array(z.string()),
    removed: z.array(z.string()),
  })
  .openapi('KeyChange');
export type KeyChangeView = z.infer<typeof KeyChangeView>;

export const PartyParam = z.object({
  party: z
    .string()
    .min(1)
    .max(255)
    .openapi({ param: { name: 'party', in: 'path' } }),
});
