/**
 * The CSV of `merchant import` (contract §15), read and checked as a whole before anything is written.
 *
 * Creating: the header names some of `name,category,kyc,channels` (any order; `name` required). An empty cell
 * takes the default of `merchant create`: category `regular`, KYC `pending`, no channels. `channels` is `all`
 * or channel codes separated by `;`.
 * Updating (`--update`): the header has `merchantId` and at least one of `name`, `category`, `kyc`; the columns
 * present decide what changes, and an empty cell keeps that merchant's value.
 *
 * RFC 4180 as spreadsheets write it: quoted fields (with `""` and line breaks inside), a byte-order mark,
 * CRLF or LF line ends, empty lines skipped. Names are operator text: control and format characters are
 * refused like everywhere else (src/shared/operator-text.ts). Every problem names its line (the line its
 * record starts on) and field; the first {@link MAX_REPORTED_PROBLEMS} are reported.
 *
 * Pure: what needs the database (channel codes, merchant ids) is checked by the service on the parsed rows.
 */
import { CsvError, parse } from 'csv-parse/sync';
import { channelCodeSchema, kycStatusSchema, nameSchema } from '../channels/domain/channel-rules.js';
import { validateCategory, DEFAULT_CATEGORY } from '../pricing/domain/pricing.js';
import type { KycStatus } from '../../shared/vocabulary.js';

/** Problems listed before the rest are only counted: enough to fix a file column by column. */
export const MAX_REPORTED_PROBLEMS = 20;

/** The most merchants one file may hold (the whole file is held and checked in memory first). */
export const DEFAULT_MAX_IMPORT_ROWS = 1_000_000;

const CREATE_COLUMNS = ['name', 'category', 'kyc', 'channels'] as const;
const UPDATE_COLUMNS = ['merchantId', 'name', 'category', 'kyc'] as const;
type Column = (typeof CREATE_COLUMNS)[number] | (typeof UPDATE_COLUMNS)[number];

/** A merchant to create, as the file gives it (channel codes still to be matched against the catalogue). */
export interface ImportRow {
  line: number;
  name: string;
  category: string;
  kycStatus: KycStatus;
  /** `all`, or the codes given (lower-case, each once); empty: none. */
  channels: 'all' | string[];
}

/** A change to an existing merchant; absent fields keep their value. */
export interface UpdateRow {
  line: number;
  merchantId: string;
  name?: string;
  category?: string;
  kycStatus?: KycStatus;
}

export type Parsed<T> = { ok: true; rows: T[]; columns: Column[] } | { ok: false; problems: string[] };

/** Collects problems, keeping the first {@link MAX_REPORTED_PROBLEMS} and counting the rest. */
export class Problems {
  readonly #list: string[] = [];
  #more = 0;

  add(problem: string): void {
    if (this.#list.length < MAX_REPORTED_PROBLEMS) this.#list.push(problem);
    else this.#more++;
  }

  get empty(): boolean {
    return this.#list.length === 0;
  }

  /** The problems, then how many more there were, then that nothing was written. */
  report(): string[] {
    return [...this.#list, ...(this.#more > 0 ? [`… and ${this.#more} more problem${this.#more === 1 ? '' : 's'}`] : []), 'nothing was written: fix the file and import it again'];
  }
}

interface CsvRecord {
  line: number;
  cells: string[];
}

/** The file's records with the line each starts on; a CSV syntax error is a problem naming its line. */
function records(text: string, maxRows: number): { ok: true; records: CsvRecord[] } | { ok: false; problems: string[] } {
  let parsed: { record: string[]; info: { lines: number; empty_lines: number } }[];
  try {
    // relax_column_count: a row with a wrong number of fields is reported below, by line, with the others.
    // `to` bounds the work on an oversized file: the header, the limit and one record more are enough to refuse it.
    parsed = parse(text, { bom: true, skip_empty_lines: true, relax_column_count: true, info: true, to: maxRows + 2 }) as unknown as typeof parsed;
  } catch (err) {
    if (err instanceof CsvError) {
      const line = (err as CsvError & { lines?: number }).lines;
      return { ok: false, problems: [`${line !== undefined ? `line ${line}: ` : ''}not valid CSV: ${err.message.replace(/^[^:]*: /, '')}`, 'nothing was written: fix the file and import it again'] };
    }
    throw err;
  }
  // csv-parse reports the line a record ends on; it starts after the previous record and the empty lines skipped since.
  const out: CsvRecord[] = [];
  let end = 0;
  let empty = 0;
  for (const { record, info } of parsed) {
    out.push({ line: end + 1 + (info.empty_lines - empty), cells: record });
    end = info.lines;
    empty = info.empty_lines;
  }
  return { ok: true, records: out };
}

/** The header's columns, each known and given once; problems name the unknown ones and the expected set. */
function header(first: CsvRecord | undefined, allowed: readonly Column[], problems: Problems): Column[] {
  if (first === undefined) {
    problems.add(`the file is empty: its first line must be the header (${allowed.join(',')})`);
    return [];
  }
  const columns: Column[] = [];
  first.cells.forEach((raw, i) => {
    const name = raw.trim();
    const known = allowed.find((c) => c.toLowerCase() === name.toLowerCase());
    if (known === undefined) problems.add(`line ${first.line}: column ${i + 1} "${name.slice(0, 40)}" is not one of ${allowed.join(', ')}`);
    else if (columns.includes(known)) problems.add(`line ${first.line}: column ${known} is given twice`);
    else columns.push(known);
  });
  return columns;
}

/**
 * Each record's cells by column; a record with another number of fields is a problem. Too many rows is
 * one problem (checked first: nothing else of such a file is read).
 */
function* cellsOf(all: CsvRecord[], columns: Column[], maxRows: number, problems: Problems): Generator<{ line: number; get: (c: Column) => string | undefined }> {
  const body = all.slice(1);
  if (body.length > maxRows) {
    problems.add(`the file has more than ${maxRows} merchants; split it into files of at most ${maxRows}`);
    return;
  }
  if (body.length === 0) problems.add('the file has a header but no merchants');
  for (const r of body) {
    if (r.cells.length !== columns.length) {
      problems.add(`line ${r.line}: ${r.cells.length} field${r.cells.length === 1 ? '' : 's'}, the header has ${columns.length} (${columns.join(',')}); quote a value that holds a comma`);
      continue;
    }
    yield { line: r.line, get: (c) => (columns.includes(c) ? r.cells[columns.indexOf(c)] : undefined) };
  }
}

function checkName(line: number, text: string, problems: Problems): string | undefined {
  const parsed = nameSchema.safeParse(text);
  if (parsed.success) return parsed.data;
  for (const i of parsed.error.issues) problems.add(`line ${line}: name: ${i.message}`);
  return undefined;
}

/**
 * `check` of a cell's text, computed once per distinct text of a file (a column of a few categories or
 * `all` repeated 100,000 times is checked a few times); a problem is reported for every line that has it.
 */
function memo<T>(check: (text: string) => { ok: true; value: T } | { ok: false; problems: string[] }): (line: number, text: string, problems: Problems) => T | undefined {
  const seen = new Map<string, { ok: true; value: T } | { ok: false; problems: string[] }>();
  return (line, text, problems) => {
    let result = seen.get(text);
    if (result === undefined) seen.set(text, (result = check(text)));
    if (result.ok) return result.value;
    for (const p of result.problems) problems.add(`line ${line}: ${p}`);
    return undefined;
  };
}

function categoryCheck(text: string): { ok: true; value: string } | { ok: false; problems: string[] } {
  return validateCategory(text.trim());
}

function kycCheck(text: string): { ok: true; value: KycStatus } | { ok: false; problems: string[] } {
  const parsed = kycStatusSchema.safeParse(text.trim());
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, problems: [`kyc: must be approved, pending or rejected (got "${text.trim().slice(0, 20)}")`] };
}

function channelsCheck(text: string): { ok: true; value: 'all' | string[] } | { ok: false; problems: string[] } {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: true, value: [] };
  if (trimmed.toLowerCase() === 'all') return { ok: true, value: 'all' };
  const codes: string[] = [];
  const problems: string[] = [];
  for (const raw of trimmed.split(';')) {
    const parsed = channelCodeSchema.safeParse(raw.trim().toLowerCase());
    if (!parsed.success) problems.push(`channels: "${raw.trim().slice(0, 70)}" ${parsed.error.issues[0]!.message} (codes separated by ";", or all)`);
    else if (codes.includes(parsed.data)) problems.push(`channels: ${parsed.data} is listed twice`);
    else codes.push(parsed.data);
  }
  return problems.length === 0 ? { ok: true, value: codes } : { ok: false, problems };
}

/** The checks of one file (their memory lives as long as the file's parse). */
function checks() {
  return { category: memo(categoryCheck), kyc: memo(kycCheck), channels: memo(channelsCheck) };
}

/** Merchants to create from a `merchant import` file, or every problem found (up to the reported number). */
export function parseImportFile(text: string, maxRows = DEFAULT_MAX_IMPORT_ROWS): Parsed<ImportRow> {
  const read = records(text, maxRows);
  if (!read.ok) return read;
  const problems = new Problems();
  const columns = header(read.records[0], CREATE_COLUMNS, problems);
  if (columns.length > 0 && !columns.includes('name')) problems.add(`line ${read.records[0]!.line}: the header has no name column (columns: ${CREATE_COLUMNS.join(',')})`);
  if (!problems.empty) return { ok: false, problems: problems.report() };
  const rows: ImportRow[] = [];
  const check = checks();
  for (const { line, get } of cellsOf(read.records, columns, maxRows, problems)) {
    const name = checkName(line, get('name')!, problems);
    const categoryText = get('category') ?? '';
    const category = categoryText.trim() === '' ? DEFAULT_CATEGORY : check.category(line, categoryText, problems);
    const kycText = get('kyc') ?? '';
    const kycStatus = kycText.trim() === '' ? 'pending' : check.kyc(line, kycText, problems);
    const channels = check.channels(line, get('channels') ?? '', problems);
    if (name !== undefined && category !== undefined && kycStatus !== undefined && channels !== undefined) rows.push({ line, name, category, kycStatus, channels });
  }
  return problems.empty ? { ok: true, rows, columns } : { ok: false, problems: problems.report() };
}

/** Changes from a `merchant import --update` file, or every problem found (duplicate ids included). */
export function parseUpdateFile(text: string, maxRows = DEFAULT_MAX_IMPORT_ROWS): Parsed<UpdateRow> {
  const read = records(text, maxRows);
  if (!read.ok) return read;
  const problems = new Problems();
  const columns = header(read.records[0], UPDATE_COLUMNS, problems);
  if (columns.length > 0) {
    const line = read.records[0]!.line;
    if (!columns.includes('merchantId')) problems.add(`line ${line}: the header has no merchantId column (an update names each merchant by its id)`);
    if (!columns.some((c) => c !== 'merchantId')) problems.add(`line ${line}: the header names nothing to change: add name, category or kyc`);
  }
  if (!problems.empty) return { ok: false, problems: problems.report() };
  const rows: UpdateRow[] = [];
  const check = checks();
  const seen = new Map<string, number>();
  for (const { line, get } of cellsOf(read.records, columns, maxRows, problems)) {
    const merchantId = get('merchantId')!.trim();
    if (merchantId === '') {
      problems.add(`line ${line}: merchantId: must not be empty`);
      continue;
    }
    const earlier = seen.get(merchantId);
    if (earlier !== undefined) problems.add(`line ${line}: merchantId: ${merchantId} is also on line ${earlier}; give each merchant once`);
    seen.set(merchantId, line);
    const row: UpdateRow = { line, merchantId };
    let ok = true;
    const nameText = get('name');
    if (nameText !== undefined && nameText.trim() !== '') {
      row.name = checkName(line, nameText, problems);
      ok &&= row.name !== undefined;
    }
    const categoryText = get('category');
    if (categoryText !== undefined && categoryText.trim() !== '') {
      row.category = check.category(line, categoryText, problems);
      ok &&= row.category !== undefined;
    }
    const kycText = get('kyc');
    if (kycText !== undefined && kycText.trim() !== '') {
      row.kycStatus = check.kyc(line, kycText, problems);
      ok &&= row.kycStatus !== undefined;
    }
    if (ok) rows.push(row);
  }
  return problems.empty ? { ok: true, rows, columns } : { ok: false, problems: problems.report() };
}
