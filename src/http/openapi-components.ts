/**
 * Moves every titled schema of the OpenAPI document's request and response bodies into
 * `components.schemas`, once, and refers to it (docs/api-reference.md). The route schemas inline
 * each shared TypeBox schema (`Address`, `BillingDetails`, `Transaction`…) wherever it is used,
 * which made the document 1 MB, most of it repeats: readers (the `/docs` renderer, client
 * generators) parse and render each copy.
 *
 * The walk is bottom-up, so a schema's key already holds `$ref`s to the titled schemas inside it
 * and two identical schemas get one component. A title names its first shape; another shape
 * under the same title (a request's `Address` accepts what the response's does not) is named
 * `<title>2`, `<title>3`… in the order the document lists them. Parameters keep their schemas
 * inline (tools read a parameter's `schema.default` in place); examples and defaults are data,
 * never schemas, and are left alone.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

interface Document {
  paths?: Record<string, Record<string, { requestBody?: Json; responses?: Json; [key: string]: unknown }>>;
  components?: { schemas?: Record<string, Json>; [key: string]: unknown };
  [key: string]: unknown;
}

/** Values that are data, not schemas: a `title` key inside them is not a schema's title. */
const DATA_KEYWORDS = new Set(['example', 'examples', 'default', 'const', 'enum']);
const NAME = /[^A-Za-z0-9._-]/g;

const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

class Hoister {
  private readonly byShape = new Map<string, string>();

  constructor(private readonly schemas: Record<string, Json>) {}

  hoist(node: Json): Json {
    if (Array.isArray(node)) return node.map((item) => this.hoist(item));
    if (!isObject(node)) return node;
    const copy: JsonObject = {};
    for (const [key, value] of Object.entries(node)) copy[key] = DATA_KEYWORDS.has(key) ? value : this.hoist(value);
    if (typeof copy.title !== 'string' || '$ref' in copy) return copy;
    return { $ref: `#/components/schemas/${this.nameOf(copy, copy.title)}` };
  }

  private nameOf(schema: JsonObject, title: string): string {
    const shape = JSON.stringify(schema);
    const known = this.byShape.get(shape);
    if (known) return known;
    const base = title.replace(NAME, '_') || 'Schema';
    let name = base;
    for (let n = 2; name in this.schemas; n++) name = `${base}${n}`;
    this.schemas[name] = schema;
    this.byShape.set(shape, name);
    return name;
  }
}

/** Rewrites the document's request and response bodies in place; returns the document. */
export function hoistTitledSchemas<T extends object>(input: T): T {
  const document = input as Document;
  const components = (document.components ??= {});
  const hoister = new Hoister((components.schemas ??= {}));
  for (const methods of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(methods)) {
      if (operation.requestBody !== undefined) operation.requestBody = hoister.hoist(operation.requestBody);
      if (operation.responses !== undefined) operation.responses = hoister.hoist(operation.responses);
    }
  }
  return input;
}
