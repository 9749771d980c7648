/**
 * How deeply a request's JSON may nest. Parsing a deep document is fine, but everything after it
 * walks it recursively (schema validation, the answer's serializer, log redaction): 20,000 nested
 * arrays overflow the stack there and would be a 500. No document of the API nests beyond a dozen
 * levels; a hundred leaves room for any metadata or forwarded body.
 */
export const MAX_JSON_DEPTH = 100;

/**
 * Whether `text` (JSON) opens more than `max` arrays or objects inside each other. One pass over
 * the characters, skipping strings (and escapes in them): linear in the body, no pattern.
 */
export function jsonNestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
