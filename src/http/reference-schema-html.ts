/**
 * A JSON schema of the OpenAPI document as HTML, for the `/docs` pages (http/reference-pages.ts):
 * each property with its type, whether it is required, its description and its limits; nested
 * objects inline; a named schema (`$ref` to `components.schemas`) as a link to its own page, so a
 * page never repeats a shared schema.
 */

export interface Schema {
  $ref?: string;
  title?: string;
  type?: string | string[];
  format?: string;
  description?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  [keyword: string]: unknown;
}

const SCHEMA_PREFIX = '#/components/schemas/';
/** Deeper than this, an inline object shows its type only (no schema of this API nests so far). */
const MAX_DEPTH = 8;

export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A description's Markdown, the part this API uses: `code` spans and paragraphs. Everything else is text. */
export function markdownHtml(text: string): string {
  return text
    .split(/\n{2,}/)
    .map(
      (paragraph) =>
        `<p>${escapeHtml(paragraph)
          .replace(/`([^`\n]+)`/g, '<code>$1</code>')
          .replace(/\n/g, '<br>')}</p>`,
    )
    .join('');
}

export const schemaName = (ref: string): string | null =>
  ref.startsWith(SCHEMA_PREFIX) ? ref.slice(SCHEMA_PREFIX.length) : null;

/** Where a schema's page is, relative to any page under /docs/. */
export const schemaHref = (name: string): string => `../schemas/${encodeURIComponent(name)}`;

const literal = (value: unknown) => `<code>${escapeHtml(JSON.stringify(value))}</code>`;

/** The alternatives of an anyOf/oneOf without `null`, and whether `null` was one. */
function alternatives(schema: Schema): { options: Schema[]; nullable: boolean } | null {
  const list = schema.anyOf ?? schema.oneOf;
  if (!list) return null;
  const options = list.filter((option) => option.type !== 'null');
  return { options, nullable: options.length < list.length };
}

/** A one-line type: `string (date-time)`, `array of Address`, `Buyer or null`. */
export function typeHtml(schema: Schema): string {
  if (schema.$ref) {
    const name = schemaName(schema.$ref);
    return name ? `<a href="${schemaHref(name)}">${escapeHtml(name)}</a>` : escapeHtml(schema.$ref);
  }
  if (schema.const !== undefined) return literal(schema.const);
  const choice = alternatives(schema);
  if (choice) {
    const kinds =
      choice.options.length === 1 ? typeHtml(choice.options[0]!) : choice.options.length > 1 ? 'one of' : 'null';
    return choice.nullable && choice.options.length > 0 ? `${kinds} or null` : kinds;
  }
  if (schema.allOf) return 'all of';
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type ?? 'any']).map((type) => escapeHtml(type));
  if (types.includes('array') && schema.items) return `array of ${typeHtml(schema.items)}`;
  return `${types.join(' or ')}${schema.format ? ` (${escapeHtml(schema.format)})` : ''}`;
}

const LIMITS: Array<[string, string]> = [
  ['minLength', 'min length'],
  ['maxLength', 'max length'],
  ['minimum', 'min'],
  ['maximum', 'max'],
  ['exclusiveMinimum', 'greater than'],
  ['exclusiveMaximum', 'less than'],
  ['minItems', 'min items'],
  ['maxItems', 'max items'],
  ['pattern', 'pattern'],
  ['default', 'default'],
];

/** Enum values, limits and default of a schema (of its one non-null alternative), as a line. */
function limitsHtml(schema: Schema): string {
  const choice = alternatives(schema);
  const target = choice?.options.length === 1 ? choice.options[0]! : schema;
  const parts = LIMITS.filter(
    ([key]) => target[key] !== undefined || (key === 'default' && schema.default !== undefined),
  ).map(([key, label]) => `${label} ${literal(target[key] ?? schema[key])}`);
  if (target.enum) parts.unshift(`one of ${target.enum.map(literal).join(', ')}`);
  return parts.length > 0 ? `<div class="limits">${parts.join(' · ')}</div>` : '';
}

/** The schema's inline structure: properties, alternatives, items. Empty for a scalar or a named schema. */
export function structureHtml(schema: Schema, depth = 0): string {
  if (schema.$ref || depth > MAX_DEPTH) return '';
  const choice = alternatives(schema);
  if (choice && choice.options.length === 1) return structureHtml(choice.options[0]!, depth);
  const list = choice ? choice.options : schema.allOf;
  if (list && list.length > 0) {
    return `<ol class="options">${list.map((option) => `<li>${typeHtml(option)}${option.description ? markdownHtml(option.description) : ''}${structureHtml(option, depth + 1)}</li>`).join('')}</ol>`;
  }
  if (schema.items) return structureHtml(schema.items, depth);
  if (!schema.properties) return '';
  const required = new Set(schema.required ?? []);
  const rows = Object.entries(schema.properties).map(([name, property]) =>
    propertyHtml(name, property, required.has(name), depth + 1),
  );
  return `<ul class="properties">${rows.join('')}</ul>`;
}

function propertyHtml(name: string, property: Schema, required: boolean, depth: number): string {
  return `<li><code class="name">${escapeHtml(name)}</code> <span class="type">${typeHtml(property)}</span>${required ? ' <span class="required">required</span>' : ''}${
    property.description ? markdownHtml(property.description) : ''
  }${limitsHtml(property)}${structureHtml(property, depth)}</li>`;
}

/** A whole schema: its type line, description, limits and structure. */
export function schemaHtml(schema: Schema): string {
  return `<div class="schema"><div class="type">${typeHtml(schema)}</div>${schema.description && !schema.$ref ? markdownHtml(schema.description) : ''}${limitsHtml(schema)}${structureHtml(schema)}</div>`;
}
