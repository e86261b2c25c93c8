// Signing throughput per algorithm: our verifying signer over the file key store (file check + node:crypto sign + independent noble
// verify) against node:crypto's native sign alone and native sign + native verify, in the same run; noble's
// own signing for reference; and the independent check alone: noble's verify (verifySignature) beside the
// per-key verifier the verifying signer uses. Then the PKCS#11 backend on a SoftHSM2 token (a fresh one in a temporary
// folder; or PKCS11_MODULE, PKCS11_TOKEN_LABEL and PKCS11_PIN for a real token) beside the file signer, one signature at
// a time and PKCS11_SESSIONS (default 8) at once. Run: npx tsx bench/sign.ts [seconds per case, default 1.5]
import { execFileSync } from 'node:child_process';
import { createPrivateKey, createPublicKey, type KeyObject, randomBytes, sign, verify } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ed25519 } from '@noble/curves/ed25519.js';
import { p256, p384 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keyVerifier } from '../src/signing/algorithms.ts';
import {
  ALGORITHMS,
  KEY_ALGORITHMS,
  type KeyAlgorithm,
  KeyStore,
  openPkcs11Backend,
  verifyingSigner,
  verifySignature,
} from '../src/signing/index.ts';

const seconds = Number(process.argv[2] ?? 1.5);

async function rate(run: () => unknown | Promise<unknown>): Promise<number> {
  for (let i = 0; i < 50; i++) await run(); // warm-up
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < seconds * 1000) {
    for (let i = 0; i < 20; i++) await run();
    n += 20;
  }
  return (n * 1000) / (performance.now() - start);
}

const NODE_CURVE = { p256: 'P-256', p384: 'P-384', secp256k1: 'secp256k1' } as const;
const NOBLE = { ed25519, p256, p384, secp256k1 } as const;

/** A native key pair holding the same secret noble uses (JWK import). */
function nativePair(algorithm: KeyAlgorithm, secret: Uint8Array): { priv: KeyObject; pub: KeyObject } {
  const b64u = (b: Uint8Array) => Buffer.from(b).toString('base64url');
  let jwk: Record<string, string>;
  if (algorithm === 'ed25519') {
    jwk = { kty: 'OKP', crv: 'Ed25519', d: b64u(secret), x: b64u(ed25519.getPublicKey(secret)) };
  } else {
    const pub = NOBLE[algorithm].getPublicKey(secret, false);
    const len = (pub.length - 1) / 2;
    jwk = {
      kty: 'EC',
      crv: NODE_CURVE[algorithm],
      d: b64u(secret),
      x: b64u(pub.subarray(1, 1 + len)),
      y: b64u(pub.subarray(1 + len)),
    };
  }
  const priv = createPrivateKey({ key: jwk, format: 'jwk' });
  return { priv, pub: createPublicKey(priv) };
}

const dir = await mkdtemp(join(tmpdir(), 'quill-bench-sign-'));
try {
  const keys = new KeyStore({ dir, passphrase: 'bench', scrypt: { N: 1024 } });
  const signer = verifyingSigner(keys);
  const hash = randomBytes(32);
  const rows: string[][] = [];
  for (const algorithm of KEY_ALGORITHMS) {
    const view = await keys.generate(algorithm);
    await signer.sign(view.fingerprint, hash); // unlock once
    const secret =
      algorithm === 'ed25519' ? ed25519.utils.randomSecretKey() : NOBLE[algorithm].utils.randomSecretKey();
    const { priv, pub } = nativePair(algorithm, secret);
    const digest = ALGORITHMS[algorithm].digest;
    const nativeSign = () => sign(digest, hash, { key: priv, dsaEncoding: 'der' });
    const sig = nativeSign();
    const ours = await rate(() => signer.sign(view.fingerprint, hash));
    const native = await rate(nativeSign);
    const nativeBoth = await rate(() => verify(digest, hash, { key: pub, dsaEncoding: 'der' }, nativeSign()));
    const nativeVerify = await rate(() => verify(digest, hash, { key: pub, dsaEncoding: 'der' }, sig));
    const nobleSign = await rate(() =>
      algorithm === 'ed25519'
        ? ed25519.sign(hash, secret)
        : NOBLE[algorithm].sign(hash, secret, { format: 'der', lowS: true }),
    );
    // A low-S signature both verifiers accept (a rejected one would time an early exit).
    const raw =
      algorithm === 'ed25519' ? ed25519.getPublicKey(secret) : NOBLE[algorithm].getPublicKey(secret, false);
    const good =
      algorithm === 'ed25519'
        ? ed25519.sign(hash, secret)
        : NOBLE[algorithm].sign(hash, secret, { format: 'der', lowS: true, prehash: true });
    const perKey = await keyVerifier(algorithm, raw);
    if (!verifySignature(algorithm, raw, hash, good) || !perKey(hash, good)) {
      throw new Error(`${algorithm}: the bench signature does not verify`);
    }
    const nobleVerify = await rate(() => verifySignature(algorithm, raw, hash, good));
    const perKeyVerify = await rate(() => perKey(hash, good));
    rows.push([
      algorithm,
      ours.toFixed(0),
      native.toFixed(0),
      nativeBoth.toFixed(0),
      nativeVerify.toFixed(0),
      nobleSign.toFixed(0),
      (native / ours).toFixed(1),
      (nativeBoth / ours).toFixed(1),
      nobleVerify.toFixed(0),
      perKeyVerify.toFixed(0),
      (perKeyVerify / nobleVerify).toFixed(1),
    ]);
  }
  const head = [
    'algorithm',
    'ours/s',
    'native sign/s',
    'native sign+verify/s',
    'native verify/s',
    'noble sign/s',
    'native/ours',
    '(sign+verify)/ours',
    'noble verify/s',
    'per-key verify/s',
    'per-key/noble',
  ];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(
    `signing a 32-byte hash, ${seconds}s per case (ours = verifyingSigner(KeyStore).sign: file check, native sign, per-key noble verify)`,
  );
  console.log(line(head));
  for (const r of rows) console.log(line(r));

  // PKCS#11: the same signer over a token.
  const token = pkcs11Token();
  if (!token) {
    console.log('\nPKCS#11: skipped (no SoftHSM2 and no PKCS11_MODULE)');
  } else {
    const sessions = Number(process.env.PKCS11_SESSIONS ?? 8);
    const backend = openPkcs11Backend({ ...token, sessions, dir: join(dir, 'p11') });
    const hsm = verifyingSigner(backend);
    const p11rows: string[][] = [];
    for (const [i, algorithm] of KEY_ALGORITHMS.entries()) {
      const view = await backend.generate(algorithm);
      const one = await rate(() => hsm.sign(view.fingerprint, hash));
      const many = await rate(() =>
        Promise.all(Array.from({ length: sessions }, () => hsm.sign(view.fingerprint, hash))),
      );
      const file = Number(rows[i]?.[1]);
      p11rows.push([
        algorithm,
        file.toFixed(0),
        one.toFixed(0),
        (many * sessions).toFixed(0),
        Number(rows[i]?.[2]).toFixed(0),
        ((many * sessions) / file).toFixed(2),
      ]);
    }
    await backend.close();
    const h2 = [
      'algorithm',
      'file/s',
      'pkcs11/s (1)',
      `pkcs11/s (${sessions})`,
      'native/s',
      `pkcs11 (${sessions})/file`,
    ];
    const w2 = h2.map((h, i) => Math.max(h.length, ...p11rows.map((r) => r[i]!.length)));
    const line2 = (r: string[]) =>
      r.map((c, i) => (i === 0 ? c.padEnd(w2[i]!) : c.padStart(w2[i]!))).join('  ');
    console.log(
      `\nPKCS#11 (${token.label}): verifyingSigner over the token, each signature verified before it leaves`,
    );
    console.log(line2(h2));
    for (const r of p11rows) console.log(line2(r));
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}

/** PKCS11_* from the environment, or a fresh SoftHSM2 token in the benchmark's temporary folder. */
function pkcs11Token(): { module: string; tokenLabel: string; pin: string; label: string } | undefined {
  const env = process.env;
  if (env.PKCS11_MODULE && env.PKCS11_TOKEN_LABEL && env.PKCS11_PIN) {
    return {
      module: env.PKCS11_MODULE,
      tokenLabel: env.PKCS11_TOKEN_LABEL,
      pin: env.PKCS11_PIN,
      label: env.PKCS11_MODULE,
    };
  }
  const module = '/usr/lib/softhsm/libsofthsm2.so';
  if (!existsSync(module)) return undefined;
  const tokens = join(dir, 'tokens');
  mkdirSync(tokens, { recursive: true });
  const conf = join(dir, 'softhsm2.conf');
  writeFileSync(conf, `directories.tokendir = ${tokens}\nobjectstore.backend = file\nlog.level = ERROR\n`);
  process.env.SOFTHSM2_CONF = conf;
  execFileSync(
    'softhsm2-util',
    ['--init-token', '--free', '--label', 'bench', '--pin', '1234', '--so-pin', '5678'],
    {
      stdio: 'ignore',
    },
  );
  return { module, tokenLabel: 'bench', pin: '1234', label: 'SoftHSM2' };
}
