import {
  escapeHtml,
  markdownHtml,
  schemaHtml,
  schemaName,
  structureHtml,
  type Schema,
} from './reference-schema-html.ts';

/**
 * The pages of the API reference at `/docs` (docs/api-reference.md), written on the server from
 * the OpenAPI document: an index of every operation by tag, a page per operation and a page per
 * named schema. Plain HTML and one stylesheet, no script: a phone shows the index as soon as its
 * few kilobytes arrive.
 */

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
}
interface Content {
  [mediaType: string]: { schema?: Schema };
}
interface Response {
  description?: string;
  content?: Content;
  $ref?: string;
}
export interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  deprecated?: boolean;
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Content };
  responses?: Record<string, Response>;
  'x-required-scopes'?: string[];
}
export interface Document {
  info: { title: string; version: string; description?: string };
  servers?: Array<{ url: string; description?: string }>;
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema>; responses?: Record<string, Response> };
}

export interface Located {
  method: string;
  path: string;
  operation: Operation;
}

export const REFERENCE_TITLE = 'svc API reference';

/** Every operation with an id, in the document's order. */
export function operationsOf(doc: Document): Located[] {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([, operation]) => operation.operationId)
      .map(([method, operation]) => ({ method, path, operation })),
  );
}

/** A page of the reference: `root` is the way back to /docs/ from it. */
export function layout(title: string, root: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${root}reference.css">
</head>
<body>
<header><a href="${root}">${REFERENCE_TITLE}</a></header>
<main>
${body}
</main>
</body>
</html>
`;
}

const method = (name: string) => `<span class="method ${escapeHtml(name)}">${escapeHtml(name.toUpperCase())}</span>`;
const anchor = (tag: string) => `tag-${tag.replace(/[^A-Za-z0-9_-]/g, '-')}`;

export function indexPage(doc: Document): string {
  const byTag = new Map<string, Located[]>();
  for (const located of operationsOf(doc)) {
    const tag = located.operation.tags?.[0] ?? 'other';
    byTag.set(tag, [...(byTag.get(tag) ?? []), located]);
  }
  const tags = [...byTag.keys()];
  const contents = `<nav class="tags" aria-label="Resources">${tags.map((tag) => `<a href="#${anchor(tag)}">${escapeHtml(tag)}</a>`).join(' ')}</nav>`;
  const sections = tags.map((tag) => {
    const items = byTag
      .get(tag)!
      .map(
        ({ method: name, path, operation }) =>
          `<li><a class="operation" href="operations/${encodeURIComponent(operation.operationId!)}">${method(name)} <code class="path">${escapeHtml(path)}</code> <span class="summary">${escapeHtml(operation.summary ?? operation.operationId!)}</span></a></li>`,
      );
    return `<section id="${anchor(tag)}"><h2>${escapeHtml(tag)}</h2><ul class="operations">${items.join('')}</ul></section>`;
  });
  const servers = (doc.servers ?? [])
    .map(
      (server) =>
        `<li><code>${escapeHtml(server.url)}</code>${server.description ? ` ${escapeHtml(server.description)}` : ''}</li>`,
    )
    .join('');
  const body = `<h1>${escapeHtml(doc.info.title)} <small>${escapeHtml(doc.info.version)}</small></h1>
${markdownHtml(doc.info.description ?? '')}
<p>Server:</p><ul>${servers}</ul>
<p>The OpenAPI document: <a href="../openapi.json">/openapi.json</a>. Its named schemas: <a href="schemas/">schemas</a>.</p>
${contents}
${sections.join('\n')}`;
  return layout(REFERENCE_TITLE, '', body);
}

function parametersHtml(parameters: Parameter[]): string {
  if (parameters.length === 0) return '';
  const rows = parameters.map(
    (parameter) =>
      `<li><code class="name">${escapeHtml(parameter.name)}</code> <span class="in">${escapeHtml(parameter.in)}</span>${
        parameter.required ? ' <span class="required">required</span>' : ''
      }${schemaHtml(parameter.schema ?? {})}${parameter.description ? markdownHtml(parameter.description) : ''}</li>`,
  );
  return `<h2>Parameters</h2><ul class="parameters">${rows.join('')}</ul>`;
}

/** A body: its media type and schema; a named schema is shown with its properties (its own named schemas stay links). */
function contentHtml(doc: Document, content: Content | undefined, expand: boolean): string {
  return Object.entries(content ?? {})
    .map(([type, media]) => {
      const name = media.schema?.$ref ? schemaName(media.schema.$ref) : null;
      const named = expand && name ? doc.components?.schemas?.[name] : undefined;
      const schema = media.schema ? schemaHtml(media.schema) + (named ? structureHtml(named) : '') : '';
      return `<div class="media"><code>${escapeHtml(type)}</code>${schema}</div>`;
    })
    .join('');
}

function responsesHtml(doc: Document, responses: Record<string, Response>): string {
  const rows = Object.entries(responses).map(([status, response]) => {
    const shared = response.$ref ? doc.components?.responses?.[response.$ref.split('/').pop()!] : undefined;
    const resolved = shared ?? response;
    // The shared error bodies (`Error`) stay links: the same on every operation.
    return `<li><span class="status s${escapeHtml(status[0]!)}">${escapeHtml(status)}</span> ${markdownHtml(resolved.description ?? '')}${contentHtml(doc, resolved.content, !shared)}</li>`;
  });
  return `<h2>Responses</h2><ul class="responses">${rows.join('')}</ul>`;
}

export function operationPage(doc: Document, { method: name, path, operation }: Located): string {
  const tag = operation.tags?.[0] ?? 'other';
  const scope = operation['x-required-scopes']?.[0];
  const credential = scope
    ? `Bearer token with scope <code>${escapeHtml(scope)}</code>`
    : operation.security?.length === 0
      ? 'No bearer token'
      : 'Bearer token';
  const body = `<p class="crumb"><a href="../#${anchor(tag)}">${escapeHtml(tag)}</a></p>
<h1>${escapeHtml(operation.summary ?? operation.operationId!)}</h1>
<p class="endpoint">${method(name)} <code class="path">${escapeHtml(path)}</code></p>
<p class="meta">Operation id <code>${escapeHtml(operation.operationId!)}</code> · ${credential}${operation.deprecated ? ' · <strong>deprecated</strong>' : ''}</p>
${markdownHtml(operation.description ?? '')}
${parametersHtml(operation.parameters ?? [])}
${operation.requestBody ? `<h2>Request body${operation.requestBody.required ? ' <span class="required">required</span>' : ''}</h2>${contentHtml(doc, operation.requestBody.content, true)}` : ''}
${responsesHtml(doc, operation.responses ?? {})}`;
  return layout(`${operation.summary ?? operation.operationId} · ${REFERENCE_TITLE}`, '../', body);
}

const usersByDocument = new WeakMap<Document, Map<string, Located[]>>();

/** The operations whose body or responses name the schema directly (found once per document). */
function usersOf(doc: Document, name: string): Located[] {
  let users = usersByDocument.get(doc);
  if (!users) {
    users = new Map();
    for (const located of operationsOf(doc)) {
      const text = JSON.stringify([located.operation.requestBody, located.operation.responses]);
      for (const match of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
        const list = users.get(match[1]!) ?? [];
        if (!list.includes(located)) list.push(located);
        users.set(match[1]!, list);
      }
    }
    usersByDocument.set(doc, users);
  }
  return users.get(name) ?? [];
}

export function schemaPage(doc: Document, name: string, schema: Schema): string {
  const users = usersOf(doc, name).map(
    ({ method: m, path, operation }) =>
      `<li><a href="../operations/${encodeURIComponent(operation.operationId!)}">${method(m)} <code class="path">${escapeHtml(path)}</code></a></li>`,
  );
  const body = `<p class="crumb"><a href="./">schemas</a></p>
<h1>${escapeHtml(name)}</h1>
${schemaHtml(schema)}
${users.length > 0 ? `<h2>Used by</h2><ul class="operations">${users.join('')}</ul>` : ''}`;
  return layout(`${name} · ${REFERENCE_TITLE}`, '../', body);
}

export function schemasPage(doc: Document): string {
  const names = Object.keys(doc.components?.schemas ?? {}).sort((a, b) => a.localeCompare(b));
  const body = `<h1>Schemas</h1><ul class="schemas">${names.map((name) => `<li><a href="${encodeURIComponent(name)}">${escapeHtml(name)}</a></li>`).join('')}</ul>`;
  return layout(`Schemas · ${REFERENCE_TITLE}`, '../', body);
}
