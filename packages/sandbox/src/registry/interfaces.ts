/**
 * Which sandbox templates implement which token-standard interfaces, and their views. The participant computes an
 * interface view from the contract's create argument (`view` of the template's `interface instance`); here each
 * implementation is a function of the create argument as the JSON API renders it, returning the view as the JSON
 * API renders it (Numeric 10 strings, ISO times, `null` for None).
 */
import { TOKEN_STANDARD_PACKAGES } from '@quill/canton/token';
import { valueToJson } from '../lfjson.ts';
import type { Contract } from '../state/index.ts';

/** A create argument (or any record) as rendered JSON. */
export type Json = Record<string, unknown>;

export interface Implementation {
  /** The implementing template, `#package-name:Module:Entity`. */
  template: string;
  /** The interface, `#package-name:Module:Entity` (as clients name it in filters and commands). */
  interface: string;
  view: (arg: Json) => Json;
}

/** `#name:Module:Entity` → `<package id>:Module:Entity`: events name interfaces in package-id form. */
export function interfacePackageIdForm(qualified: string): string {
  const [pkg = '', module = '', entity = ''] = qualified.split(':');
  const p = TOKEN_STANDARD_PACKAGES.find((x) => x.name === pkg.slice(1));
  return `${p?.packageId ?? pkg.slice(1)}:${module}:${entity}`;
}

/** `#name:Module:Entity` of a stored contract's template. */
export function templateName(c: Pick<Contract, 'packageName' | 'templateId'>): string {
  const [, module, entity] = c.templateId.split(':');
  return `#${c.packageName}:${module}:${entity}`;
}

export class InterfaceTable {
  private readonly byTemplate = new Map<string, Implementation[]>();

  constructor(implementations: readonly Implementation[]) {
    for (const i of implementations) {
      const list = this.byTemplate.get(i.template) ?? [];
      list.push(i);
      this.byTemplate.set(i.template, list);
    }
  }

  /** The interfaces a contract's template implements. */
  of(c: Pick<Contract, 'packageName' | 'templateId'>): readonly Implementation[] {
    return this.byTemplate.get(templateName(c)) ?? [];
  }

  implements(c: Pick<Contract, 'packageName' | 'templateId'>, qualifiedInterface: string): boolean {
    return this.of(c).some((i) => i.interface === qualifiedInterface);
  }

  /** The view of `qualifiedInterface` for a contract, or undefined when its template does not implement it. */
  view(c: Contract, qualifiedInterface: string): Json | undefined {
    const impl = this.of(c).find((i) => i.interface === qualifiedInterface);
    return impl ? impl.view(valueToJson(c.argument) as Json) : undefined;
  }
}
