/**
 * Packages and their vetting per (participant, synchronizer), each vetting state with a topology serial
 * that increases on every change. Listing follows POST /v2/package-vetting/list: both filters, sort by
 * synchronizer id then participant id, each compared identifier first, then namespace (the participant's
 * orderingIdentifierThenNamespace), a page token naming the last item on every non-empty page (so it stays
 * valid when packages are added), and a server maximum page size.
 */
import { createHash } from 'node:crypto';
import { err } from '../errors.ts';

export interface PackageRecord {
  packageId: string;
  packageName: string;
  packageVersion: string;
  /** Uploaded on this participant: only then name and version are reported. */
  uploaded: boolean;
}

export interface VettedEntry {
  packageId: string;
  validFrom?: string;
  validUntil?: string;
}

interface VettingState {
  participantId: string;
  synchronizerId: string;
  serial: number;
  packages: VettedEntry[];
}

export interface VettingFilter {
  packageIds?: string[] | null;
  packageNamePrefixes?: string[] | null;
  participantIds?: string[] | null;
  synchronizerIds?: string[] | null;
}

function addTo(map: Map<string, Set<string>>, key: string, value: string): void {
  let set = map.get(key);
  if (!set) {
    set = new Set();
    map.set(key, set);
  }
  set.add(value);
}

/** Deterministic 64-hex package id for a package name + version (the sandbox has no real DARs). */
export function packageIdFor(name: string, version: string): string {
  return createHash('sha256').update(`quill-sandbox-package:${name}:${version}`).digest('hex');
}

export class PackageStore {
  readonly maxPageSize: number;
  private readonly packages = new Map<string, PackageRecord>();
  private readonly byName = new Map<string, string>();
  private readonly vetting = new Map<string, VettingState>();
  /** Package name → the qualified names (`Module:Entity`) of the templates (interfaces) its packages define. */
  private readonly templates = new Map<string, Set<string>>();
  private readonly interfaces = new Map<string, Set<string>>();

  constructor(maxPageSize = 100) {
    this.maxPageSize = maxPageSize;
  }

  /** Uploads (or returns) a package; the newest upload of a name is the one `#name:...` resolves to. */
  upload(
    name: string,
    version = '1.0.0',
    uploaded = true,
    packageId = packageIdFor(name, version),
  ): PackageRecord {
    let p = this.packages.get(packageId);
    if (!p) {
      p = { packageId, packageName: name, packageVersion: version, uploaded };
      this.packages.set(packageId, p);
    }
    this.byName.set(name, packageId);
    return p;
  }

  get(packageId: string): PackageRecord | undefined {
    return this.packages.get(packageId);
  }

  idForName(name: string): string | undefined {
    return this.byName.get(name);
  }

  /** Records that the packages named `name` define the template `qualifiedName` (`Module:Entity`). */
  addTemplate(name: string, qualifiedName: string): void {
    addTo(this.templates, name, qualifiedName);
  }

  hasTemplate(name: string, qualifiedName: string): boolean {
    return this.templates.get(name)?.has(qualifiedName) ?? false;
  }

  /** Records that the packages named `name` define the interface `qualifiedName` (`Module:Entity`). */
  addInterface(name: string, qualifiedName: string): void {
    addTo(this.interfaces, name, qualifiedName);
  }

  hasInterface(name: string, qualifiedName: string): boolean {
    return this.interfaces.get(name)?.has(qualifiedName) ?? false;
  }

  /** Vets (or re-vets with a new window) a package on a participant and synchronizer; bumps the serial. */
  vet(participantId: string, synchronizerId: string, entry: VettedEntry): void {
    const key = `${synchronizerId}\u0000${participantId}`;
    let state = this.vetting.get(key);
    if (!state) {
      state = { participantId, synchronizerId, serial: 0, packages: [] };
      this.vetting.set(key, state);
    }
    state.packages = state.packages.filter((p) => p.packageId !== entry.packageId);
    state.packages.push(entry);
    state.serial += 1;
  }

  isVetted(participantId: string, synchronizerId: string, packageId: string): boolean {
    const state = this.vetting.get(`${synchronizerId}\u0000${participantId}`);
    return state?.packages.some((p) => p.packageId === packageId) ?? false;
  }

  list(filter: VettingFilter, pageToken: string, pageSize: number) {
    if (pageSize < 0 || pageSize > this.maxPageSize) throw err.vettingPageSize(this.maxPageSize);
    const size = pageSize === 0 ? this.maxPageSize : pageSize;
    const after = pageToken === '' ? undefined : decodeToken(pageToken);
    const states = [...this.vetting.values()]
      .filter((s) => !filter.participantIds?.length || filter.participantIds.includes(s.participantId))
      .filter((s) => !filter.synchronizerIds?.length || filter.synchronizerIds.includes(s.synchronizerId))
      .sort(compareStates)
      .filter((s) => after === undefined || compareStates(s, after) > 0);
    const out: { state: VettingState; packages: VettedEntry[] }[] = [];
    for (const s of states) {
      if (out.length === size) break;
      const packages = s.packages.filter((p) => this.matches(p.packageId, filter));
      if (packages.length > 0) out.push({ state: s, packages });
    }
    const last = out[out.length - 1]?.state;
    return {
      vettedPackages: out.map(({ state, packages }) => ({
        packages: packages.map((p) => this.vettedJson(p)),
        participantId: state.participantId,
        synchronizerId: state.synchronizerId,
        topologySerial: state.serial,
      })),
      // As ApiPackageService: the last item's token on every non-empty page, even the final one.
      nextPageToken: last ? encodeToken(last.synchronizerId, last.participantId) : '',
    };
  }

  private matches(packageId: string, f: VettingFilter): boolean {
    const p = this.packages.get(packageId);
    const idOk = f.packageIds?.length ? f.packageIds.includes(packageId) : undefined;
    const nameOk = f.packageNamePrefixes?.length
      ? p !== undefined && f.packageNamePrefixes.some((prefix) => p.packageName.startsWith(prefix))
      : undefined;
    // Both given: a package matching either list is returned (the filter is a union of its criteria).
    if (idOk === undefined && nameOk === undefined) return true;
    return idOk === true || nameOk === true;
  }

  private vettedJson(v: VettedEntry) {
    const p = this.packages.get(v.packageId);
    return {
      packageId: v.packageId,
      validFromInclusive: v.validFrom ?? null,
      validUntilExclusive: v.validUntil ?? null,
      packageName: p?.uploaded ? p.packageName : null,
      packageVersion: p?.uploaded ? p.packageVersion : null,
    };
  }
}

/** `identifier::namespace` compared identifier first, then namespace (UniqueIdentifier's ordering). */
function compareUid(a: string, b: string): number {
  const [ai, an] = splitUid(a);
  const [bi, bn] = splitUid(b);
  if (ai !== bi) return ai < bi ? -1 : 1;
  if (an !== bn) return an < bn ? -1 : 1;
  return 0;
}

function splitUid(uid: string): [string, string] {
  const at = uid.indexOf('::');
  return at < 0 ? [uid, ''] : [uid.slice(0, at), uid.slice(at + 2)];
}

function compareStates(a: { synchronizerId: string; participantId: string }, b: typeof a): number {
  return compareUid(a.synchronizerId, b.synchronizerId) || compareUid(a.participantId, b.participantId);
}

/** Token = URL-safe base64 of a proto `{1: synchronizerId, 2: participantId}`, like the participant's. */
function encodeToken(synchronizerId: string, participantId: string): string {
  const field = (tag: number, s: string) => {
    const b = Buffer.from(s, 'utf8');
    return Buffer.concat([Buffer.from([tag]), varint(b.length), b]);
  };
  return Buffer.concat([field(0x0a, synchronizerId), field(0x12, participantId)]).toString('base64url');
}

function varint(n: number): Buffer {
  const out: number[] = [];
  let v = n;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return Buffer.from(out);
}

function decodeToken(token: string): { synchronizerId: string; participantId: string } {
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(token)) throw err.vettingPageToken('not URL-safe base64');
  const bytes = Buffer.from(token, 'base64url');
  const fields: Record<number, string> = {};
  let i = 0;
  while (i < bytes.length) {
    const tag = bytes[i++];
    let len = 0;
    let shift = 0;
    for (;;) {
      const b = bytes[i++];
      if (b === undefined) throw err.vettingPageToken('truncated');
      len |= (b & 0x7f) << shift;
      shift += 7;
      if ((b & 0x80) === 0) break;
    }
    if (tag !== 0x0a && tag !== 0x12) throw err.vettingPageToken('unexpected field');
    if (i + len > bytes.length) throw err.vettingPageToken('truncated');
    fields[tag] = bytes.subarray(i, i + len).toString('utf8');
    i += len;
  }
  return { synchronizerId: fields[0x0a] ?? '', participantId: fields[0x12] ?? '' };
}
