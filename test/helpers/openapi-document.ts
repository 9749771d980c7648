/**
 * The OpenAPI document with each `$ref` to `components.schemas` replaced by the schema it names,
 * for tests that walk an operation's request or response schema into its properties. The served
 * document names each titled schema once (src/http/openapi-components.ts); its components refer to
 * each other without cycles, so the copy is finite.
 */
const PREFIX = '#/components/schemas/';

export function inlineSchemaRefs<T>(doc: T): T {
  const schemas = (doc as { components?: { schemas?: Record<string, unknown> } }).components?.schemas ?? {};
  const inline = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(inline);
    if (typeof node !== 'object' || node === null) return node;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && ref.startsWith(PREFIX)) {
      const target = schemas[ref.slice(PREFIX.length)];
      if (target === undefined) throw new Error(`${ref} names no schema`);
      return inline(target);
    }
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, inline(value)]));
  };
  return { ...doc, paths: inline((doc as { paths: unknown }).paths) } as T;
}
