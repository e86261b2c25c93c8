/**
 * The participant's check of the packages and templates a format's filters name, run by its index when it
 * reads (IndexServiceImpl.checkUnknownIdentifiers), after the request validator accepted their form: a package
 * name no uploaded package has is 404 PACKAGE_NAMES_NOT_FOUND; a known package name without that template (or
 * interface) is 404 NO_TEMPLATES_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME (NO_INTERFACE_FOR_…). The sandbox's
 * interfaces are the token standard's (token-standard.ts).
 */
import { type EventFormat, typeRefs, type UpdateFormat } from '@quill/canton/ledger';
import { SandboxError } from './errors.ts';
import type { PackageStore } from './state/index.ts';

type Filters = Pick<EventFormat, 'filtersByParty' | 'filtersForAnyParty'>;

/** The event formats of an update format (transactions and reassignments, as the participant checks them). */
export function eventFormatsOf(u: UpdateFormat): Filters[] {
  return [u.includeTransactions?.eventFormat, u.includeReassignments].filter((f): f is Filters => f != null);
}

/** Throws the participant's 404 for the first kind of unknown identifier the formats name. */
export function checkKnownIdentifiers(packages: PackageStore, formats: readonly Filters[]): void {
  const unknownNames = new Set<string>();
  const noTemplate = new Set<string>();
  const noInterface = new Set<string>();
  for (const ref of formats.flatMap(typeRefs)) {
    // The request validator has already refused any other form: `#<name>:<module>:<entity>`.
    const [pkg = '', module = '', entity = ''] = ref.id.split(':');
    const name = pkg.slice(1);
    const qualified = `${module}:${entity}`;
    if (packages.idForName(name) === undefined) unknownNames.add(name);
    else if (ref.kind === 'interface') {
      if (!packages.hasInterface(name, qualified)) noInterface.add(`(${name},${qualified})`);
    } else if (!packages.hasTemplate(name, qualified)) noTemplate.add(`(${name},${qualified})`);
  }
  const list = (s: Set<string>) => `[${[...s].join(', ')}]`;
  if (unknownNames.size > 0) {
    throw notFound(
      'PACKAGE_NAMES_NOT_FOUND',
      `The following package names do not match upgradable packages uploaded on this participant: ${list(unknownNames)}.`,
    );
  }
  if (noTemplate.size > 0) {
    throw notFound(
      'NO_TEMPLATES_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME',
      `The following package-name/template qualified-name pairs do not reference any template-id uploaded on this participant: ${list(noTemplate)}.`,
    );
  }
  if (noInterface.size > 0) {
    throw notFound(
      'NO_INTERFACE_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME',
      `The following package-name/interface qualified-name pairs do not reference any interface-id uploaded on this participant: ${list(noInterface)}.`,
    );
  }
}

/** Category 11 (InvalidGivenCurrentSystemStateResourceMissing): 404; a DamlErrorWithDefiniteAnswer, "false". */
function notFound(code: string, cause: string): SandboxError {
  return new SandboxError(code, 11, cause, {}, [], false);
}
