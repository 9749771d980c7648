/**
 * A CSV reader for Adyen's report files (RFC 4180: comma separated, fields optionally in double
 * quotes, a quote inside a quoted field doubled, CRLF or LF line ends, line breaks allowed inside
 * quotes). One pass over the text, each character looked at once: linear in the input, no regular
 * expression. A UTF-8 byte order mark at the start is dropped. A blank line yields no record.
 */

export interface CsvRecord {
  /** The record's fields, unquoted. */
  fields: string[];
  /** The line of the file the record starts on (1: the header). */
  line: number;
}

export class CsvError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CsvError';
  }
}

export function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  const n = text.length;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  while (i < n) {
    const recordLine = line;
    const fields: string[] = [];
    let quoted = false;
    // One record: fields until a line end (outside quotes) or the end of the text.
    for (;;) {
      let field: string;
      if (text[i] === '"') {
        // A quoted field: runs up to each quote are sliced, a doubled quote is one quote.
        quoted = true;
        const parts: string[] = [];
        let from = i + 1;
        for (;;) {
          const quote = text.indexOf('"', from);
          if (quote === -1) throw new CsvError(`line ${recordLine}: a quoted field is not closed`);
          const part = text.slice(from, quote);
          parts.push(part);
          line += countLineFeeds(part);
          if (text[quote + 1] === '"') {
            parts.push('"');
            from = quote + 2;
          } else {
            i = quote + 1;
            break;
          }
        }
        field = parts.join('');
        const next = text[i];
        if (i < n && next !== ',' && next !== '\n' && next !== '\r')
          throw new CsvError(`line ${line}: text after a closing quote`);
      } else {
        let end = i;
        while (end < n) {
          const c = text.charCodeAt(end);
          if (c === 44 || c === 10 || c === 13) break;
          end += 1;
        }
        field = text.slice(i, end);
        i = end;
      }
      fields.push(field);
      if (i < n && text[i] === ',') {
        i += 1;
        continue;
      }
      break;
    }
    // At a line end or the end of the text.
    if (text[i] === '\r') i += 1;
    if (text[i] === '\n') i += 1;
    line += 1;
    // A blank line (one empty, unquoted field) is no record.
    if (!(fields.length === 1 && fields[0] === '' && !quoted)) records.push({ fields, line: recordLine });
  }
  return records;
}

function countLineFeeds(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count += 1;
  return count;
}
