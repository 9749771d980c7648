/**
 * The small XML reader Braintree's webhook payloads need (elements, attributes, text; no DTDs,
 * no namespaces). Braintree's notification XML is machine-written and shallow; anything else is
 * refused (null) rather than guessed at.
 */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const decode = (s: string) => s.replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => ENTITIES[name]!);

/**
 * One token: a declaration, a comment, a closing tag, an opening tag with its attributes, or text.
 * Sticky (`y`), like ATTRIBUTE: tried only where the previous token ended, so the parse stops at the
 * first place no token starts. Tried at every position instead, an unclosed `<?` or `<!--` was
 * scanned to the end of the text from each of its copies (time quadratic in the text).
 */
const TOKEN =
  /<\?[^>]*\?>|<!--[\s\S]*?-->|<\/([\w:-]+)\s*>|<([\w:-]+)((?:\s+[\w:-]+\s*=\s*"[^"]*")*)\s*(\/?)>|([^<]+)/gy;
const ATTRIBUTE = /\s*([\w:-]+)\s*=\s*"([^"]*)"/gy;
/** A notification is a few hundred tokens; a document of more is refused before it costs much. */
const MAX_TOKENS = 10_000;

export function parseXml(xml: string): XmlElement | null {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) return null;
  const root: XmlElement = { name: '#root', attributes: {}, children: [], text: '' };
  const stack: XmlElement[] = [root];
  let consumed = 0;
  let tokens = 0;
  for (const match of xml.matchAll(TOKEN)) {
    if (match.index !== consumed || ++tokens > MAX_TOKENS) return null;
    consumed += match[0].length;
    const [, closing, opening, attrs, selfClosing, text] = match;
    const top = stack[stack.length - 1]!;
    if (closing) {
      if (top.name !== closing || stack.length === 1) return null;
      stack.pop();
    } else if (opening) {
      const attributes = attrs
        ? Object.fromEntries([...attrs.matchAll(ATTRIBUTE)].map((a) => [a[1]!, decode(a[2]!)]))
        : {};
      const element: XmlElement = { name: opening, attributes, children: [], text: '' };
      top.children.push(element);
      if (!selfClosing) stack.push(element);
    } else if (text !== undefined) {
      top.text += decode(text);
    }
  }
  if (consumed !== xml.length || stack.length !== 1 || root.children.length !== 1) return null;
  return root.children[0]!;
}

/** The first child element named `name`. */
export const child = (element: XmlElement | null | undefined, name: string): XmlElement | null =>
  element?.children.find((c) => c.name === name) ?? null;

/** The trimmed text of a child, or null when it is absent or `nil="true"`. */
export function textOf(element: XmlElement | null | undefined, name: string): string | null {
  const found = child(element, name);
  if (!found || found.attributes.nil === 'true') return null;
  const text = found.text.trim();
  return text === '' ? null : text;
}
