// Which webhook targets are allowed: http(s) URLs whose host resolves only to public addresses, unless private
// targets are explicitly allowed (WEBHOOK_ALLOW_PRIVATE_TARGETS=true), or loopback ones (`loopback`: the demo's
// default, so an integrator's receiver on the same machine works and nothing else private does). Every address the name resolves to is
// checked, so a name with one public and one private address is refused. `resolveTarget` returns the checked
// addresses so the delivery connects to them and not to a second answer (DNS rebinding, F11).
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

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Whether an IP literal is a loopback address (127/8, ::1, or 127/8 mapped into IPv6). */
export function isLoopbackAddress(ip: string): boolean {
  const v = isIP(ip);
  if (v === 4) return LOOPBACK.check(ip, 'ipv4');
  if (v === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
    if (mapped) return LOOPBACK.check(mapped[1] as string, 'ipv4');
    return LOOPBACK.check(ip, 'ipv6');
  }
  return false;
}

/** Which non-public targets are allowed: none (false), every private one (true), or loopback only. */
export type PrivateTargets = boolean | 'loopback';

export type TargetProblem = 'INVALID_URL' | 'PRIVATE_TARGET' | 'UNRESOLVABLE';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address of a name (production: the system resolver; tests inject a rebinding one). */
export type Resolve = (host: string) => Promise<ResolvedAddress[]>;

export const systemResolve: Resolve = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));

/** A target that may be called: its URL, the host name (no brackets) and the addresses that were checked. */
export interface Target {
  url: URL;
  host: string;
  addresses: ResolvedAddress[];
}

function parseTarget(url: string): URL | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  if (u.username || u.password) return undefined;
  return u;
}

/** Resolves once and checks every answer; the delivery connects only to the addresses returned. */
export async function resolveTarget(
  url: string,
  allowPrivate: PrivateTargets,
  resolve: Resolve = systemResolve,
): Promise<Target | TargetProblem> {
  const u = parseTarget(url);
  if (!u) return 'INVALID_URL';
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const v = isIP(host);
  let addresses: ResolvedAddress[];
  try {
    addresses = v ? [{ address: host, family: v === 6 ? 6 : 4 }] : await resolve(host);
  } catch {
    return 'UNRESOLVABLE';
  }
  if (addresses.length === 0) return 'UNRESOLVABLE';
  const refused = (a: ResolvedAddress) =>
    isPrivateAddress(a.address) && !(allowPrivate === 'loopback' && isLoopbackAddress(a.address));
  if (allowPrivate !== true && addresses.some(refused)) return 'PRIVATE_TARGET';
  return { url: u, host, addresses };
}

/** Undefined when `url` may be called; otherwise why not (registration: a name is not resolved when private
 * targets are allowed). */
export async function checkTarget(
  url: string,
  allowPrivate: PrivateTargets,
): Promise<TargetProblem | undefined> {
  if (allowPrivate === true) return parseTarget(url) ? undefined : 'INVALID_URL';
  const t = await resolveTarget(url, allowPrivate);
  return typeof t === 'string' ? t : undefined;
}
