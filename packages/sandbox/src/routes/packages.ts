/** `POST /v2/package-vetting/list`. */
import { endpoints as E } from '@quill/canton/ledger';
import { SandboxError } from '../errors.ts';
import { type App, type Services, serve } from './http.ts';

/** A Daml-LF party string (Ref.Party: letters, digits, `:-_ `, 1–255 characters) without the `::` delimiter. */
function uidPartProblem(s: string): string | undefined {
  if (s.length === 0) return 'Daml-LF Party is empty';
  if (s.length > 255) return 'Daml-LF Party is too long (max: 255)';
  for (const ch of s) {
    if (!/^[A-Za-z0-9:\-_ ]$/.test(ch))
      return `non expected character 0x${(ch.codePointAt(0) ?? 0).toString(16)} in Daml-LF Party "${s}"`;
  }
  return s.includes('::') ? 'String contains reserved delimiter `::`.' : undefined;
}

/**
 * Why `s` is not a unique identifier `identifier::namespace`, in the words of `UniqueIdentifier.fromProtoPrimitive_`
 * (topology/Identifier.scala): split at the first `::`, the identifier a String185 and the namespace a fingerprint
 * (String68), each a Daml-LF party string without the delimiter.
 */
export function uniqueIdentifierProblem(s: string): string | undefined {
  const pos = s.indexOf('::');
  if (pos === 0) return `Invalid unique identifier \`${s}\` with empty identifier.`;
  if (s === '') return 'Empty string is not a valid unique identifier.';
  if (pos < 0) return `Invalid unique identifier \`${s}\` with missing namespace.`;
  const id = s.slice(0, pos);
  const fp = s.slice(pos + 2);
  const idProblem =
    uidPartProblem(id) ??
    (id.length > 185
      ? `The given string has a maximum length of 185 but a string of length ${id.length}`
      : '');
  if (idProblem) return `Identifier decoding of \`${s.slice(0, 200)}\` failed with: ${idProblem}`;
  const fpProblem =
    uidPartProblem(fp) ??
    (fp.length > 68
      ? `The given Fingerprint has a maximum length of 68 but a Fingerprint of length ${fp.length}`
      : '');
  if (fpProblem) return `Fingerprint decoding of \`${s.slice(0, 200)}\` failed with: ${fpProblem}`;
  return undefined;
}

/**
 * `TopologyStateFilter.fromProto` (ledger-api-core `ledger/api/package.scala`): every synchronizer id, then every
 * participant id, must parse as a UniqueIdentifier, else PROTO_DESERIALIZATION_FAILURE (a ValueConversionError).
 */
function checkTopologyStateFilter(f: {
  participantIds?: string[] | null;
  synchronizerIds?: string[] | null;
}) {
  for (const [field, ids] of [
    ['synchronizer_ids', f.synchronizerIds],
    ['participant_ids', f.participantIds],
  ] as const) {
    for (const id of ids ?? []) {
      const problem = uniqueIdentifierProblem(id);
      if (problem)
        throw new SandboxError(
          'PROTO_DESERIALIZATION_FAILURE',
          8,
          `Deserialization of protobuf message failed: Unable to convert field ${field}: ${problem}`,
        );
    }
  }
}

export function packageRoutes(app: App, { state }: Services): void {
  serve(app, E.listVettedPackages, (c, { body }) => {
    // After the package filter (the endpoint's rule), before the page token and size (the store).
    if (body.topologyStateFilter) checkTopologyStateFilter(body.topologyStateFilter);
    const filter = {
      packageIds: body.packageMetadataFilter?.packageIds,
      packageNamePrefixes: body.packageMetadataFilter?.packageNamePrefixes,
      participantIds: body.topologyStateFilter?.participantIds,
      synchronizerIds: body.topologyStateFilter?.synchronizerIds,
    };
    return c.json(state.packages.list(filter, body.pageToken ?? '', body.pageSize ?? 0));
  });
}
