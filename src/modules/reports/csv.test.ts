import { describe, expect, it } from 'vitest';
import { csvCell, csvLine } from './csv.ts';

describe('happy', () => {
  it('writes RFC 4180 lines: CRLF, quotes doubled, fields with commas, quotes or line breaks quoted', () => {
    expect(csvLine(['a', 'b,c', 'say "hi"', 'two\nlines', null, 12, true])).toBe(
      'a,"b,c","say ""hi""","two\nlines",,12,true\r\n',
    );
  });

  it('leaves plain numbers as they are, negative ones too', () => {
    expect(csvCell('-12.50')).toBe('-12.50');
    expect(csvCell(-1250)).toBe('-1250');
  });
});

describe('security', () => {
  it('neutralises text a spreadsheet would run as a formula', () => {
    expect(csvCell('=HYPERLINK("http://evil","x")')).toBe('"\'=HYPERLINK(""http://evil"",""x"")"');
    expect(csvCell('+1+1')).toBe("'+1+1");
    expect(csvCell('-2+3')).toBe("'-2+3");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\tcmd')).toBe("'\tcmd");
    expect(csvCell('\r=1')).toBe('"\'\r=1"');
  });
});
