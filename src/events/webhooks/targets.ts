// Which webhook targets are allowed: http(s) URLs whose host resolves only to public addresses, unless private
// targets are explicitly allowed (WEBHOOK_ALLOW_PRIVATE_TARGETS=true). Every address the name resolves to is
// checked, so a name with one public and one private address is refused.
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  PRIVATE.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  PRIVATE.addSubnet(net, bits, 'ipv6');

/** Whether an IP literal is loopback, private, link-local, shared, multicast or unspecified. */
export function isPrivateAddress(ip: string): boolean {
  const v = isIP(ip);
  if (v === 4) return PRIVATE.check(ip, 'ipv4');
  if (v === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
    if (mapped) return PRIVATE.check(mapped[1] as string, 'ipv4');
    return PRIVATE.check(ip, 'ipv6');
  }
  return true;
}

export type TargetProblem = 'INVALID_URL' | 'PRIVATE_TARGET' | 'UNRESOLVABLE';

/** Undefined when `url` may be called; otherwise why not. */
export async function checkTarget(url: string, allowPrivate: boolean): Promise<TargetProblem | undefined> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'INVALID_URL';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'INVALID_URL';
  if (u.username || u.password) return 'INVALID_URL';
  if (allowPrivate) return undefined;
  const host = u.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host)
      ? [host]
      : (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    return 'UNRESOLVABLE';
  }
  if (addresses.length === 0) return 'UNRESOLVABLE';
  return addresses.some(isPrivateAddress) ? 'PRIVATE_TARGET' : undefined;
}
