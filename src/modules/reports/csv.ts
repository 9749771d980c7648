/**
 * RFC 4180 CSV cells and lines (CRLF line breaks; a field holding a comma, quote, CR or LF is quoted
 * and its quotes doubled) with formula-injection protection: text that a spreadsheet would run as a
 * formula (starting with `=`, `+`, `-`, `@`, tab or carriage return) gets a leading `'`, so it is
 * shown as text. Plain numbers (`-12.50`) are left as they are: they are numbers, not formulas.
 */

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;
const NEEDS_QUOTES = /[",\r\n]/;

export type CellValue = string | number | boolean | null | undefined;

export function csvCell(value: CellValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  let text = value;
  if (FORMULA_START.test(text) && !PLAIN_NUMBER.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(values: readonly CellValue[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
