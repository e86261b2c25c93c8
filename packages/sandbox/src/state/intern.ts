/**
 * Sharing of immutable pieces between committed updates (template ids, party lists, Daml values), so that a
 * million updates fit in memory: transactions repeat the same parties, templates, amounts and records.
 * Values are hash-consed bottom-up (a node's key names its children by number), and never mutated after
 * commit, which is what makes sharing them safe. Tables are bounded; past the bound nothing new is shared.
 */
import type { Identifier, Value } from '@quill/canton/transaction';

const MAX_ENTRIES = 500_000;

export class Interner {
  private readonly strings = new Map<string, string>();
  private readonly arrays = new Map<string, string[]>();
  private readonly values = new Map<string, Value>();
  private readonly ids = new WeakMap<object, number>();
  private readonly identifiers = new Map<string, Identifier>();
  private next = 0;

  /**
   * Forgets every table (pruning calls it): the tables would otherwise keep alive what pruning dropped. What was
   * shared stays shared by the updates that hold it; later updates share among themselves.
   */
  clear(): void {
    this.strings.clear();
    this.arrays.clear();
    this.values.clear();
    this.identifiers.clear();
  }

  str(s: string): string {
    const hit = this.strings.get(s);
    if (hit !== undefined) return hit;
    if (this.strings.size < MAX_ENTRIES) this.strings.set(s, s);
    return s;
  }

  arr(xs: string[]): string[] {
    const key = xs.join('\u0000');
    const hit = this.arrays.get(key);
    if (hit) return hit;
    const shared = xs.map((x) => this.str(x));
    if (this.arrays.size < MAX_ENTRIES) this.arrays.set(key, shared);
    return shared;
  }

  private identifier(id: Identifier | undefined): Identifier | undefined {
    if (id === undefined) return undefined;
    const key = `${id.packageId}:${id.moduleName}:${id.entityName}`;
    const hit = this.identifiers.get(key);
    if (hit) return hit;
    if (this.identifiers.size < MAX_ENTRIES) this.identifiers.set(key, id);
    return id;
  }

  private idOf(v: object | undefined): string {
    if (v === undefined) return '-';
    let n = this.ids.get(v);
    if (n === undefined) {
      n = this.next++;
      this.ids.set(v, n);
    }
    return String(n);
  }

  private share(key: string, make: () => Value): Value {
    const hit = this.values.get(key);
    if (hit) return hit;
    const v = make();
    if (this.values.size < MAX_ENTRIES) this.values.set(key, v);
    return v;
  }

  /** The shared instance of a value equal to `v` (deep), or `v` itself. */
  value(v: Value | undefined): Value | undefined {
    if (v === undefined) return undefined;
    const s = v.sum;
    switch (s.oneofKind) {
      case 'unit':
        return this.share('u', () => v);
      case 'bool':
      case 'int64':
      case 'date':
      case 'timestamp':
      case 'numeric':
      case 'party':
      case 'text':
      case 'contractId': {
        const raw = (s as unknown as Record<string, unknown>)[s.oneofKind];
        return this.share(`${s.oneofKind}:${String(raw)}`, () => v);
      }
      case 'enum': {
        const enumId = this.identifier(s.enum.enumId);
        return this.share(`e:${this.idOf(enumId)}:${s.enum.constructor}`, () => ({
          sum: { oneofKind: 'enum', enum: { enumId, constructor: s.enum.constructor } },
        }));
      }
      case 'optional': {
        const inner = this.value(s.optional.value);
        return this.share(`o:${this.idOf(inner)}`, () => ({
          sum: { oneofKind: 'optional', optional: { value: inner } },
        }));
      }
      case 'list': {
        const elements = s.list.elements.map((e) => this.value(e) ?? e);
        return this.share(`l:${elements.map((e) => this.idOf(e)).join(',')}`, () => ({
          sum: { oneofKind: 'list', list: { elements } },
        }));
      }
      case 'textMap': {
        const entries = s.textMap.entries.map((e) => ({ key: this.str(e.key), value: this.value(e.value) }));
        const key = `t:${entries.map((e) => `${JSON.stringify(e.key)}=${this.idOf(e.value)}`).join(',')}`;
        return this.share(key, () => ({ sum: { oneofKind: 'textMap', textMap: { entries } } }));
      }
      case 'genMap': {
        const entries = s.genMap.entries.map((e) => ({ key: this.value(e.key), value: this.value(e.value) }));
        const key = `g:${entries.map((e) => `${this.idOf(e.key)}=${this.idOf(e.value)}`).join(',')}`;
        return this.share(key, () => ({ sum: { oneofKind: 'genMap', genMap: { entries } } }));
      }
      case 'record': {
        const recordId = this.identifier(s.record.recordId);
        const fields = s.record.fields.map((f) => ({ label: this.str(f.label), value: this.value(f.value) }));
        const key = `r:${this.idOf(recordId)}:${fields.map((f) => `${f.label}=${this.idOf(f.value)}`).join(',')}`;
        return this.share(key, () => ({ sum: { oneofKind: 'record', record: { recordId, fields } } }));
      }
      case 'variant': {
        const variantId = this.identifier(s.variant.variantId);
        const inner = this.value(s.variant.value);
        return this.share(`v:${this.idOf(variantId)}:${s.variant.constructor}:${this.idOf(inner)}`, () => ({
          sum: {
            oneofKind: 'variant',
            variant: { variantId, constructor: s.variant.constructor, value: inner },
          },
        }));
      }
      default:
        return v;
    }
  }
}
