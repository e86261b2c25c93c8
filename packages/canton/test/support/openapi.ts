/**
 * Conformance helper: validates request/response bodies against the real OpenAPI 3.0 documents copied into
 * `test/fixtures/spec/` (the participant's JSON Ledger API 3.5 and the scan API with `/v0/activities`), and
 * websocket frames against the components of the participant's AsyncAPI document.
 *
 * - OpenAPI 3.0 `nullable` is translated to JSON Schema; `$ref`s (also the scan spec's
 *   `../../../../common/...` refs → the splice-common files) resolve through ajv schema ids.
 * - Spec quirk: `required` follows proto comments and the real server prints `null` for unset optionals,
 *   so `null` counts as absent for every optional property.
 * - `renameCoin: true` applies the activity feed's renaming rule (our `coin` = the spec's `amulet`) to the
 *   body's keys before validating against the scan spec.
 *
 * Usage: `ledgerSpec().expectValidResponse('/v2/state/ledger-end', 'get', 200, body)`,
 * `ledgerSpec().validateComponent('JsTransaction', value)`, `ledgerSpec().sample('JsTransaction')`.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = { [key: string]: Json };

const SPEC_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'spec');
const DOCS = {
  ledger: 'ledger-json-api-openapi-3.5.yaml',
  async: 'ledger-json-api-asyncapi-3.5.yaml',
  scan: 'scan-openapi-with-activities.yaml',
  'common-external': 'splice-common-external.yaml',
  'common-internal': 'splice-common-internal.yaml',
} as const;
type DocName = keyof typeof DOCS;

const COIN_TO_AMULET: Record<string, string> = {
  coin_owner: 'amulet_owner',
  coin_amount: 'amulet_amount',
  input_coin_amount: 'input_amulet_amount',
  coin_price: 'amulet_price',
};

export interface ValidationResult {
  valid: boolean;
  errors: string[];
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Rewrites a `$ref` found in `doc` into an absolute ajv id. */
function absoluteRef(doc: DocName, ref: string): string {
  const [file, pointer = ''] = ref.split('#');
  if (!file) return `quill:${doc}#${pointer}`;
  if (file.endsWith('common-external.yaml')) return `quill:common-external#${pointer}`;
  if (file.endsWith('common-internal.yaml')) return `quill:common-internal#${pointer}`;
  throw new Error(`unsupported $ref ${ref} in ${doc}`);
}

/** OpenAPI 3.0 schema → JSON Schema (draft-07 as ajv reads it). */
function convertSchema(doc: DocName, schema: Json): Json {
  if (!isObj(schema)) return schema;
  if (typeof schema.$ref === 'string') return { $ref: absoluteRef(doc, schema.$ref) };
  const out: Obj = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'nullable' || key === 'discriminator' || key === 'example' || key === 'x-jvm-package')
      continue;
    if (key === 'properties' && isObj(value)) {
      const required = new Set(Array.isArray(schema.required) ? schema.required : []);
      const props: Obj = {};
      for (const [name, prop] of Object.entries(value)) {
        const converted = convertSchema(doc, prop);
        props[name] = required.has(name) ? converted : { anyOf: [converted, { type: 'null' }] };
      }
      out.properties = props;
    } else if (key === 'items' || key === 'additionalProperties' || key === 'not') {
      out[key] = convertSchema(doc, value);
    } else if ((key === 'allOf' || key === 'anyOf' || key === 'oneOf') && Array.isArray(value)) {
      out[key] = value.map((s) => convertSchema(doc, s));
    } else {
      out[key] = value;
    }
  }
  if (schema.nullable === true) return { anyOf: [out, { type: 'null' }] };
  return out;
}

function renameKeys(value: unknown, map: Record<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => renameKeys(v, map));
  if (!isObj(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [map[k] ?? k, renameKeys(v, map)]));
}

function formatErrors(validate: ValidateFunction): string[] {
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'invalid'}`);
}

export class OpenApiSpec {
  readonly raw: Obj;
  private readonly ajv: Ajv;
  private readonly cache = new Map<string, ValidateFunction>();

  constructor(
    private readonly doc: DocName,
    private readonly docs: Record<DocName, Obj>,
    private readonly options: { renameCoin?: boolean } = {},
  ) {
    this.raw = docs[doc];
    this.ajv = new Ajv({ strict: false, allErrors: true });
    const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
    addFormats(this.ajv);
    for (const name of Object.keys(docs) as DocName[]) {
      const components = isObj(docs[name].components) ? (docs[name].components as Obj) : {};
      const schemas = isObj(components.schemas) ? components.schemas : {};
      const converted: Obj = {};
      for (const [key, s] of Object.entries(schemas)) converted[key] = convertSchema(name, s);
      this.ajv.addSchema({ $id: `quill:${name}`, components: { schemas: converted } });
    }
  }

  /** Validates `value` against `#/components/schemas/<name>`. */
  validateComponent(name: string, value: unknown): ValidationResult {
    if (!isObj((this.raw.components as Obj | undefined)?.schemas) || !(name in this.schemas())) {
      throw new Error(`no component ${name} in ${this.doc}`);
    }
    return this.run(`component:${name}`, { $ref: `quill:${this.doc}#/components/schemas/${name}` }, value);
  }

  expectValidComponent(name: string, value: unknown): void {
    this.assert(this.validateComponent(name, value), `component ${name}`);
  }

  validateRequest(path: string, method: string, body: unknown): ValidationResult {
    const op = this.operation(path, method);
    const { node, doc } = this.resolve(op.node.requestBody, op.doc);
    const media = isObj(node) && isObj(node.content) ? node.content['application/json'] : undefined;
    if (!isObj(media) || !media.schema)
      throw new Error(`${method.toUpperCase()} ${path} has no JSON request body`);
    return this.run(`req:${method}:${path}`, convertSchema(doc, media.schema), body);
  }

  expectValidRequest(path: string, method: string, body: unknown): void {
    this.assert(this.validateRequest(path, method, body), `request ${method.toUpperCase()} ${path}`);
  }

  /** `status` falls back to the operation's `default` response (the JsCantonError body). */
  validateResponse(path: string, method: string, status: number, body: unknown): ValidationResult {
    const op = this.operation(path, method);
    const responses = op.node.responses as Obj;
    const { node, doc } = this.resolve(responses[String(status)] ?? responses.default, op.doc);
    if (!isObj(node)) throw new Error(`${method.toUpperCase()} ${path} documents no ${status} response`);
    const content = isObj(node.content) ? node.content : {};
    const media = content['application/json'] ?? Object.values(content)[0];
    if (!isObj(media) || !media.schema) return { valid: true, errors: [] };
    return this.run(`res:${method}:${path}:${status}`, convertSchema(doc, media.schema), body);
  }

  expectValidResponse(path: string, method: string, status: number, body: unknown): void {
    this.assert(
      this.validateResponse(path, method, status, body),
      `response ${status} of ${method.toUpperCase()} ${path}`,
    );
  }

  /** Names of all component schemas. */
  componentNames(): string[] {
    return Object.keys(this.schemas());
  }

  /** The component name of an operation's 200 response (or undefined for inline/array schemas). */
  responseComponent(path: string, method: string): string | undefined {
    const op = this.operation(path, method);
    const { node } = this.resolve((op.node.responses as Obj)['200'], op.doc);
    const media = isObj(node) && isObj(node.content) ? node.content['application/json'] : undefined;
    const ref = isObj(media) && isObj(media.schema) ? media.schema.$ref : undefined;
    return typeof ref === 'string' ? ref.split('/').pop() : undefined;
  }

  /**
   * The component an operation's JSON request body or 200 response is made of (`array`: a JSON list of it), or
   * undefined when it has none or it is inline.
   */
  payloadComponent(
    path: string,
    method: string,
    which: 'request' | 'response',
  ): { name: string; array: boolean } | undefined {
    const op = this.operation(path, method);
    const raw = which === 'request' ? op.node.requestBody : (op.node.responses as Obj)['200'];
    if (raw === undefined) return undefined;
    const { node } = this.resolve(raw, op.doc);
    const media = isObj(node) && isObj(node.content) ? node.content['application/json'] : undefined;
    const schema = isObj(media) && isObj(media.schema) ? media.schema : undefined;
    const items = schema?.type === 'array' && isObj(schema.items) ? schema.items : undefined;
    const ref = (items ?? schema)?.$ref;
    return typeof ref === 'string'
      ? { name: ref.split('/').pop() ?? '', array: items !== undefined }
      : undefined;
  }

  /**
   * A valid instance of a component generated from the spec: `minimal` fills only required properties,
   * `full` fills every property (arrays get one element, oneOf picks `variant` or the first branch).
   * `strings(prop, component)` may supply values for string properties (e.g. base64, timestamps, enum names).
   */
  sample(
    name: string,
    opts: {
      mode?: 'minimal' | 'full';
      variant?: number;
      strings?: (prop: string, component: string | undefined) => string | undefined;
    } = {},
  ): unknown {
    const mode = opts.mode ?? 'minimal';
    const seen: string[] = [];
    const gen = (schema: Json, prop: string, doc: DocName): unknown => {
      if (!isObj(schema)) return null;
      if (typeof schema.$ref === 'string') {
        const target = schema.$ref.split('/').pop() ?? '';
        if (seen.filter((s) => s === target).length > 1) return undefined;
        seen.push(target);
        const out = gen(this.schemas(doc)[target] ?? null, prop, doc);
        seen.pop();
        return out;
      }
      if (Array.isArray(schema.oneOf)) {
        const pick = schema.oneOf[Math.min(opts.variant ?? 0, schema.oneOf.length - 1)] ?? null;
        return gen(pick, prop, doc);
      }
      if (Array.isArray(schema.enum)) return schema.enum[0];
      switch (schema.type) {
        case 'integer':
          return 1;
        case 'number':
          return 1.5;
        case 'boolean':
          return false;
        case 'string':
          return (
            opts.strings?.(prop, seen.at(-1)) ??
            (schema.format === 'date-time' ? '2025-01-01T00:00:00Z' : 'x')
          );
        case 'array': {
          const min = typeof schema.minItems === 'number' ? schema.minItems : mode === 'full' ? 1 : 0;
          const items: unknown[] = [];
          for (let i = 0; i < min; i++) items.push(gen(schema.items ?? null, prop, doc));
          return items.filter((v) => v !== undefined);
        }
        default: {
          const out: Record<string, unknown> = {};
          const required = new Set(Array.isArray(schema.required) ? schema.required : []);
          for (const [key, s] of Object.entries(isObj(schema.properties) ? schema.properties : {})) {
            if (mode === 'minimal' && !required.has(key)) continue;
            const v = gen(s, key, doc);
            if (v !== undefined) out[key] = v;
          }
          if (mode === 'full' && isObj(schema.additionalProperties)) {
            const v = gen(schema.additionalProperties, prop, doc);
            if (v !== undefined) out.key1 = v;
          }
          return out;
        }
      }
    };
    if (!(name in this.schemas())) throw new Error(`no component ${name} in ${this.doc}`);
    return gen({ $ref: `#/components/schemas/${name}` }, name, this.doc);
  }

  private schemas(doc: DocName = this.doc): Obj {
    const components = this.docs[doc].components;
    return isObj(components) && isObj(components.schemas) ? components.schemas : {};
  }

  private operation(path: string, method: string): { node: Obj; doc: DocName } {
    const { node, doc } = this.resolve((this.raw.paths as Obj)[path]);
    const op = isObj(node) ? node[method.toLowerCase()] : undefined;
    if (!isObj(op)) throw new Error(`no operation ${method.toUpperCase()} ${path} in ${this.doc}`);
    return { node: op, doc };
  }

  /** Follows a non-schema `$ref` (path items, responses, request bodies), also into the common files. */
  private resolve(
    value: Json | undefined,
    doc: DocName = this.doc,
  ): { node: Json | undefined; doc: DocName } {
    if (!isObj(value) || typeof value.$ref !== 'string') return { node: value, doc };
    const [id, pointer = ''] = absoluteRef(doc, value.$ref).split('#');
    const target = (id ?? '').replace('quill:', '') as DocName;
    let node: Json | undefined = this.docs[target];
    for (const part of pointer.split('/').slice(1)) {
      const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
      node = isObj(node) ? node[key] : undefined;
    }
    return this.resolve(node, target);
  }

  private run(key: string, schema: Json, value: unknown): ValidationResult {
    let validate = this.cache.get(key);
    if (!validate) {
      validate = this.ajv.compile(schema as object);
      this.cache.set(key, validate);
    }
    const body = this.options.renameCoin ? renameKeys(value, COIN_TO_AMULET) : value;
    const valid = validate(body) as boolean;
    return { valid, errors: valid ? [] : formatErrors(validate) };
  }

  private assert(result: ValidationResult, what: string): void {
    if (!result.valid)
      throw new Error(`${what} does not conform to ${this.doc}: ${result.errors.join('; ')}`);
  }
}

let docsCache: Record<DocName, Obj> | undefined;
function loadDocs(): Record<DocName, Obj> {
  if (!docsCache) {
    const entries = Object.entries(DOCS).map(([name, file]) => [
      name,
      parse(readFileSync(join(SPEC_DIR, file), 'utf8')) as Obj,
    ]);
    docsCache = Object.fromEntries(entries) as Record<DocName, Obj>;
  }
  return docsCache;
}

let ledger: OpenApiSpec | undefined;
/** The participant's JSON Ledger API 3.5 document. */
export function ledgerSpec(): OpenApiSpec {
  ledger ??= new OpenApiSpec('ledger', loadDocs());
  return ledger;
}

let async: OpenApiSpec | undefined;
/**
 * The participant's AsyncAPI document of the websocket streams, for its components (messages name them:
 * `asyncSpec().expectValidComponent('JsGetUpdatesResponse', frame)`). Its `Either_JsCantonError_…` are a
 * `oneOf` that a JsCantonError matches twice (the response has no required property): check errors against
 * `JsCantonError`.
 */
export function asyncSpec(): OpenApiSpec {
  async ??= new OpenApiSpec('async', loadDocs());
  return async;
}

const scans = new Map<boolean, OpenApiSpec>();
/** The scan API document (with `/v0/activities`); `renameCoin` defaults to true (our bodies say `coin`). */
export function scanSpec(options: { renameCoin?: boolean } = {}): OpenApiSpec {
  const renameCoin = options.renameCoin ?? true;
  let spec = scans.get(renameCoin);
  if (!spec) {
    spec = new OpenApiSpec('scan', loadDocs(), { renameCoin });
    scans.set(renameCoin, spec);
  }
  return spec;
}

/** Shorthands over the ledger spec. */
export function expectValidRequest(path: string, method: string, body: unknown): void {
  ledgerSpec().expectValidRequest(path, method, body);
}
export function expectValidResponse(path: string, method: string, status: number, body: unknown): void {
  ledgerSpec().expectValidResponse(path, method, status, body);
}
export function validateComponent(name: string, value: unknown): ValidationResult {
  return ledgerSpec().validateComponent(name, value);
}

const TIMESTAMPS = new Set([
  'effectiveAt',
  'recordTime',
  'createdAt',
  'validFromInclusive',
  'validUntilExclusive',
  'estimationTimestamp',
  'assignmentExclusivity',
  'maxRecordTime',
]);
const BASE64 = new Set([
  'preparedTransaction',
  'preparedTransactionHash',
  'topologyTransactions',
  'multiHash',
  'signature',
  'keyData',
  'transaction',
  'createdEventBlob',
]);
/** Proto enums the spec types as bare strings. */
const ENUMS: Record<string, string> = {
  keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519',
  signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519',
  templateId: '#quill-coin:Quill.Coin:Holding',
};

/** Plausible strings where our schemas are stricter than the spec's bare `type: string`. */
export function specStrings(prop: string, component?: string): string | undefined {
  if (TIMESTAMPS.has(prop) || component === 'MinLedgerTimeAbs') return '2025-01-01T12:00:00.123456Z';
  if (BASE64.has(prop)) return 'CgRhYmNk';
  if (prop === 'format')
    return component === 'SigningPublicKey' ? 'CRYPTO_KEY_FORMAT_RAW' : 'SIGNATURE_FORMAT_CONCAT';
  return ENUMS[prop];
}
