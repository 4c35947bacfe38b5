/**
 * The CSV of `merchant import` (contract §15), read as spreadsheets write it and refused whole, naming each
 * bad line (the line its record starts on) and field: src/modules/admin/merchant-import.ts.
 */
import { describe, expect, it } from 'vitest';
import { MAX_REPORTED_PROBLEMS, parseImportFile, parseUpdateFile } from '../../src/modules/admin/merchant-import.js';

function problemsOf(result: ReturnType<typeof parseImportFile> | ReturnType<typeof parseUpdateFile>): string[] {
  if (result.ok) throw new Error('expected the file to be refused');
  return result.problems;
}

describe('merchant import file', () => {
  it('reads quoted fields, doubled quotes, a BOM, CRLF and empty lines; defaults for empty cells', () => {
    const text = '\uFEFFname,category,kyc,channels\r\n"Toko ""A"", Jaya",micro,approved,all\r\n\r\nToko B,,,OVO; dana\r\n\r\n"Toko C",regular,rejected,\r\n';
    const r = parseImportFile(text);
    expect(r.ok && r.rows).toEqual([
      { line: 2, name: 'Toko "A", Jaya', category: 'micro', kycStatus: 'approved', channels: 'all' },
      { line: 4, name: 'Toko B', category: 'regular', kycStatus: 'pending', channels: ['ovo', 'dana'] },
      { line: 6, name: 'Toko C', category: 'regular', kycStatus: 'rejected', channels: [] },
    ]);
  });

  it('takes the columns in any order, only name required', () => {
    const r = parseImportFile('KYC,Name\napproved,Toko\n');
    expect(r.ok && r.rows).toEqual([{ line: 2, name: 'Toko', category: 'regular', kycStatus: 'approved', channels: [] }]);
  });

  it('names the line a record starts on, after a quoted line break and skipped empty lines', () => {
    // A quoted line break is valid CSV (refused in a name, like any control character in operator text).
    const text = 'name,kyc\n"Two\nlines",approved\n\n\nBad,maybe\n';
    expect(problemsOf(parseImportFile(text)).slice(0, 2)).toEqual([
      'line 2: name: contains U+000A (a line break); type it without control or format characters',
      'line 6: kyc: must be approved, pending or rejected (got "maybe")',
    ]);
  });

  it('refuses the whole file with every problem, each naming its line and field', () => {
    const text = ['name,category,kyc,channels', 'Ok,regular,approved,all', ',regular,approved,all', 'A,Bad Category!,approved,all', 'B,regular,yes,all', 'C,regular,approved,ovo;ovo', 'D,regular,approved,"no such!"', 'E,regular'].join('\n');
    const problems = problemsOf(parseImportFile(text));
    expect(problems).toEqual([
      'line 3: name: must not be empty',
      expect.stringMatching(/^line 4: category: /),
      'line 5: kyc: must be approved, pending or rejected (got "yes")',
      'line 6: channels: ovo is listed twice',
      expect.stringMatching(/^line 7: channels: "no such!" must be/),
      'line 8: 2 fields, the header has 4 (name,category,kyc,channels); quote a value that holds a comma',
      'nothing was written: fix the file and import it again',
    ]);
  });

  it('refuses control and bidirectional characters in a name, as all operator text', () => {
    expect(problemsOf(parseImportFile('name\n"Toko\u202Eevil"\n'))[0]).toMatch(/^line 2: name: contains U\+202E \(a bidirectional control/);
    expect(problemsOf(parseImportFile('name\n"Toko\u001b[31m"\n'))[0]).toMatch(/^line 2: name: contains U\+001B/);
  });

  it('refuses a header with an unknown or repeated column, or without name; an empty file; a CSV syntax error', () => {
    expect(problemsOf(parseImportFile('name,kyc,chanels\n'))[0]).toBe('line 1: column 3 "chanels" is not one of name, category, kyc, channels');
    expect(problemsOf(parseImportFile('name,name\nA,B\n'))[0]).toBe('line 1: column name is given twice');
    expect(problemsOf(parseImportFile('kyc\napproved\n'))[0]).toBe('line 1: the header has no name column (columns: name,category,kyc,channels)');
    expect(problemsOf(parseImportFile(''))[0]).toMatch(/^the file is empty/);
    expect(problemsOf(parseImportFile('name\n'))[0]).toBe('the file has a header but no merchants');
    expect(problemsOf(parseImportFile('name\nA\n"B\n'))[0]).toMatch(/^line 3: not valid CSV: /);
  });

  it(`reports the first ${MAX_REPORTED_PROBLEMS} problems and counts the rest`, () => {
    const text = `name,kyc\n${Array.from({ length: MAX_REPORTED_PROBLEMS + 5 }, (_, i) => `M${i},nope`).join('\n')}\n`;
    const problems = problemsOf(parseImportFile(text));
    expect(problems).toHaveLength(MAX_REPORTED_PROBLEMS + 2);
    expect(problems.at(-2)).toBe('… and 5 more problems');
  });

  it('refuses a file past the row bound without reading its rows', () => {
    const text = `name\n${Array.from({ length: 4 }, (_, i) => `M${i}`).join('\n')}\n`;
    expect(parseImportFile(text, 4).ok).toBe(true);
    expect(problemsOf(parseImportFile(text, 3))[0]).toBe('the file has more than 3 merchants; split it into files of at most 3');
  });
});

describe('merchant import --update file', () => {
  it('changes the columns given; an empty cell keeps the value', () => {
    const r = parseUpdateFile('merchantId,category,kyc\nm1,micro,\nm2,,approved\n');
    expect(r.ok && r.rows).toEqual([
      { line: 2, merchantId: 'm1', category: 'micro' },
      { line: 3, merchantId: 'm2', kycStatus: 'approved' },
    ]);
    expect(r.ok && r.columns).toEqual(['merchantId', 'category', 'kyc']);
  });

  it('refuses a header without merchantId or without anything to change, channels, and a merchant given twice', () => {
    expect(problemsOf(parseUpdateFile('name\nA\n'))[0]).toMatch(/^line 1: the header has no merchantId column/);
    expect(problemsOf(parseUpdateFile('merchantId\nm1\n'))[0]).toBe('line 1: the header names nothing to change: add name, category or kyc');
    expect(problemsOf(parseUpdateFile('merchantId,channels\nm1,all\n'))[0]).toBe('line 1: column 2 "channels" is not one of merchantId, name, category, kyc');
    expect(problemsOf(parseUpdateFile('merchantId,kyc\nm1,approved\nm1,pending\n'))[0]).toBe('line 3: merchantId: m1 is also on line 2; give each merchant once');
  });
});
