// Webhook signatures: HMAC-SHA256 over `${timestamp}.${body}`, sent as `Quill-Signature: t=<unix>,v1=<hex>`
// with one v1 entry per valid secret (two during a rotation's grace period).
import { createHmac, timingSafeEqual } from 'node:crypto';

export function signature(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

export function signatureHeader(secrets: readonly string[], timestamp: number, body: string): string {
  return [`t=${timestamp}`, ...secrets.map((s) => `v1=${signature(s, timestamp, body)}`)].join(',');
}

/**
 * What a receiver does (and docs/events.md shows): parse the header, check the timestamp is recent, and accept
 * when any v1 entry equals the HMAC made with its secret.
 */
export function verifySignature(
  header: string,
  body: string,
  secret: string,
  toleranceSeconds = 300,
  now = Date.now(),
): boolean {
  let t: number | undefined;
  const sigs: string[] = [];
  for (const part of header.split(',')) {
    const [k, v] = part.trim().split('=', 2);
    if (k === 't' && v && /^\d{1,12}$/.test(v)) t = Number(v);
    else if (k === 'v1' && v && /^[0-9a-f]{64}$/.test(v)) sigs.push(v);
  }
  if (t === undefined || Math.abs(now / 1000 - t) > toleranceSeconds) return false;
  const want = Buffer.from(signature(secret, t, body), 'hex');
  return sigs.some((s) => timingSafeEqual(Buffer.from(s, 'hex'), want));
}
