/**
 * `npm run admin -- <command>` (also the `payment-gateway-admin` bin):
 * operator commands on the server's database. A thin layer over
 * AdminService: it parses arguments, calls one service method, prints the
 * result (a table, or JSON with --json).
 *
 * Start-up is the server's own (loadConfig + bootData): same environment
 * variables, same master-key check. Unlike the server, the CLI never creates
 * or seeds a database except when asked to (`init`, `migrate`): every other
 * command refuses a DATA_DIR (or Postgres database) without one, so a
 * mistyped DATA_DIR or a CLI started elsewhere cannot act on a fresh copy
 * while the operator believes they manage the live one. Without DATA_DIR it
 * uses the project's own `data/` (beside package.json), wherever it is started
 * from. Every command names the database it acts on, on stderr (stdout stays
 * the command's own, --json included).
 *
 * Exit codes: 0 done; 1 refused (validation, unknown merchant/channel/key,
 * conflict, no database) or cannot start (configuration, master key); 2 usage error.
 */
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { BootError, bootData, MissingDatabaseError, type BootedData } from '../app/boot.js';
import { refuseUnsupportedNode } from '../app/runtime.js';
import { ConfigError, loadConfig } from '../shared/config.js';
import { escapeUnprintable, unprintableProblem } from '../shared/operator-text.js';
import { projectPath } from '../shared/paths.js';
import { describeDatabase } from '../storage/index.js';
import { auditChanges, type AuditChange } from '../modules/admin/audit-changes.js';
import { AdminError, AdminService, IMPORT_BATCH, osUser, type AuditEntry, type CatalogueChannel, type FeeRuleView, type MerchantChannelView } from '../modules/admin/service.js';
import type { MerchantRecord } from '../storage/model/records.js';

/** One command's help: its synopsis (first line), what its options mean, and one example. */
interface CommandHelp {
  synopsis: string;
  details?: string[];
  example: string;
}

const OVERRIDES = [
  'overrides: --fee-percentage N --fee-value N --additional-fee-percentage N',
  '           --additional-fee-value N --min N --max N --fee-to-customer true|false',
  '           (the value "default" clears an override)',
];
const CHANNEL_SETTINGS = [
  '[--status active|offline|maintenance] [--fee-percentage N] [--fee-value N]',
  '[--additional-fee-percentage N] [--additional-fee-value N] [--fee-to-customer true|false]',
  '[--requires-kyc true|false] [--sort-order N] [--group GROUP] [--name-id NAME] [--name-en NAME]',
  'GROUP: qris, virtual_account, ewallet, retail_outlet or card',
  '--name-id / --name-en: the name in Indonesian / English ("default": the stored --name applies)',
];

/** Every command, by group, in the order `help` lists them. */
const COMMAND_HELP: [string, Record<string, CommandHelp>][] = [
  ['merchants', {
    'merchant create': {
      synopsis: 'merchant create --name NAME [--kyc approved|pending|rejected] [--category CODE] [--channels all|CODE,CODE]',
      details: ['KYC pending and category regular unless given; --channels enables those catalogue channels'],
      example: 'merchant create --name "Toko Baru" --kyc approved --channels all',
    },
    'merchant list': {
      synopsis: 'merchant list [--limit N] [--after MERCHANT_ID] [--all]',
      details: [
        'merchants in id order: id, name, KYC, category, created; a page of --limit (1 to 1000, default 100)',
        'at a time; the command for the next page follows on stderr (--after the last id shown)',
        '--all: every merchant, streamed a page at a time (a table keeps the first page\'s column widths)',
      ],
      example: 'merchant list --all --json > merchants.json',
    },
    'merchant import': {
      synopsis: 'merchant import FILE [--update] [--batch-size N]',
      details: [
        'create merchants from CSV (FILE, or - for standard input) with the header name,category,kyc,channels',
        '(any order; only name required): kyc approved|pending|rejected (empty: pending), category a code',
        '(empty: regular), channels all or codes separated by ; (empty: none). Quoted fields, CRLF, a BOM are fine',
        '--update: change existing merchants; the header has merchantId and any of name,category,kyc (the columns',
        '          given change; an empty cell keeps the value)',
        'the whole file is checked first: any bad line refuses it (each named with its line and field) and',
        `nothing is written. Written in transactions of --batch-size merchants (default ${IMPORT_BATCH}), audited as one`,
        'record with the count. No API keys are created: issue each with key create when the merchant goes live',
        '--json: one line per merchant, {"merchantId":...,"name":...}',
      ],
      example: 'merchant import merchants.csv --json > imported.jsonl',
    },
    'merchant set-kyc': { synopsis: 'merchant set-kyc MERCHANT_ID approved|pending|rejected', example: 'merchant set-kyc 3f1c9a52-7d4e-4b8a-9c61-2e5f0d7a8b13 approved' },
    'merchant set-category': { synopsis: 'merchant set-category MERCHANT_ID CODE', details: ['pricing category (default regular)'], example: 'merchant set-category 3f1c9a52-7d4e-4b8a-9c61-2e5f0d7a8b13 micro' },
    'merchant channels': {
      synopsis: 'merchant channels MERCHANT_ID',
      details: [
        'the merchant\'s channels with effective values (* marks an override)',
        'merchant channels order MERCHANT_ID CODE[,CODE...]  list these channels first, in this order (the others',
        '                                                    follow in the default order); unknown codes are refused',
        'merchant channels order MERCHANT_ID --reset         back to the default order',
      ],
      example: 'merchant channels order 3f1c9a52-7d4e-4b8a-9c61-2e5f0d7a8b13 ovo,dana,bca_va',
    },
    'merchant enable-channel': {
      synopsis: 'merchant enable-channel MERCHANT_ID CODE [overrides] [--replace]',
      details: [...OVERRIDES, 'a fee override replaces the merchant\'s stored rule on the channel: one with caps, tax, a customer share', 'or bands is named and kept unless --replace'],
      example: 'merchant enable-channel 3f1c9a52-7d4e-4b8a-9c61-2e5f0d7a8b13 ovo --fee-percentage 1.2',
    },
    'merchant disable-channel': { synopsis: 'merchant disable-channel MERCHANT_ID CODE', example: 'merchant disable-channel 3f1c9a52-7d4e-4b8a-9c61-2e5f0d7a8b13 ovo' },
    'merchant origins': {
      synopsis: 'merchant origins list|add|remove MERCHANT_ID [ORIGIN] [--allow-insecure-http]',
      details: ['allowed web origins for checkout sessions', 'ORIGIN: scheme://host[:port], no path; http only for localhost/127.0.0.1 unless --allow-insecure-http'],
      example: 'merchant origins add 3f1c9a52-7d4e-4b8a-9c61-2e5f0d7a8b13 https://shop.example',
    },
  }],
  ['keys', {
    'key create': { synopsis: 'key create --merchant MERCHANT_ID [--mode test|live]', details: ['prints the secret once, then how to use the key'], example: 'key create --merchant 3f1c9a52-7d4e-4b8a-9c61-2e5f0d7a8b13' },
    'key list': { synopsis: 'key list --merchant MERCHANT_ID', details: ['never shows secrets'], example: 'key list --merchant 3f1c9a52-7d4e-4b8a-9c61-2e5f0d7a8b13' },
    'key revoke': { synopsis: 'key revoke API_KEY', details: ['the key is refused from the next request on'], example: 'key revoke pk_test_0123456789abcdef0123456789abcdef' },
  }],
  ['channels', {
    'channel list': { synopsis: 'channel list', details: ['the catalogue with the number of merchants each channel is enabled for'], example: 'channel list --wide' },
    'channel create': {
      synopsis: 'channel create --code CODE --name NAME --currency CUR --min N --max N [settings]',
      details: ['settings:', ...CHANNEL_SETTINGS.map((l) => `  ${l}`), '--group is guessed from the code when absent'],
      example: 'channel create --code gopay --name GoPay --currency IDR --min 1000 --max 2000000 --fee-percentage 2',
    },
    'channel update': {
      synopsis: 'channel update CODE [--name NAME] [--currency CUR] [--min N] [--max N] [settings] [--replace]',
      details: [
        'settings:',
        ...CHANNEL_SETTINGS.map((l) => `  ${l}`),
        '--fee-percentage / --fee-value set the channel\'s flat fee from now on: a stored channel rule it replaces',
        'that has caps, tax, a customer share or bands is named and kept unless --replace',
      ],
      example: 'channel update bca_va --status maintenance',
    },
    'channel instructions': {
      synopsis: 'channel instructions set CODE --locale id|en --file FILE.json | channel instructions show CODE [--locale id|en]',
      details: [
        'payment instructions in one language; FILE.json: [{ "key": "atm", "title": "ATM BCA", "steps": ["...", "..."] }, ...]',
        '(or { "sections": [...] }); at most 8 sections of at most 15 steps of at most 300 characters, plain text',
        '(no < or >), placeholders {{pay_code}} {{amount}} {{merchant_name}} {{expires_at}} only; live on every',
        'server within 1 s',
      ],
      example: 'channel instructions set bca_va --locale id --file bca_va.id.json',
    },
  }],
  ['currencies', {
    'currency list': { synopsis: 'currency list', example: 'currency list' },
    'currency set': { synopsis: 'currency set CODE --minor-units N', example: 'currency set SGD --minor-units 2' },
  }],
  ['pricing rules', {
    'fee set': {
      synopsis: 'fee set CODE [--merchant MERCHANT_ID | --category CATEGORY] --bands "UPTO:PCT:FIXED,..." [settings]',
      details: [
        'settings: [--effective-from ISO_INSTANT] [--allow-unused-category] [--min-fee N] [--max-fee N]',
        '          [--tax PCT] [--customer-share PCT] [--replace]',
        'UPTO: inclusive upper bound of the band, "*" for the last band; e.g. --bands "500000:0:0,*:0.3:0"',
        'prints the rule id. A rule that replaces one in force or scheduled (same scope) and would drop its',
        'caps, tax, customer share or bands is refused, naming each: restate them, or pass --replace',
      ],
      example: 'fee set qris --category micro --bands "500000:0:0,*:0.25:0" --max-fee 5000 --effective-from 2099-01-05T00:00:00+07:00',
    },
    'fee list': {
      synopsis: 'fee list CODE [--merchant MERCHANT_ID] [--limit N] [--after RULE_ID] [--all]',
      details: ['rules in force and scheduled: channel default, categories, then merchants; a page of --limit (default 100),', 'the command for the next page on stderr (--after the last rule id); --all: every rule'],
      example: 'fee list qris',
    },
    'fee cancel': { synopsis: 'fee cancel RULE_ID', details: ['only before the rule starts'], example: 'fee cancel 0193b9c2-5f1e-7c3a-9d2b-4e6f8a1c3d5e' },
  }],
  ['fee quote signing keys (contract §11)', {
    'quote-keys list': { synopsis: 'quote-keys list', details: ['the key that signs and the retired ones (never key material)'], example: 'quote-keys list' },
    'quote-keys rotate': {
      synopsis: 'quote-keys rotate',
      details: ['a new key signs on every server within 1 s; the old one stays published until its last quote has expired'],
      example: 'quote-keys rotate --actor alice',
    },
  }],
  ['audit', {
    'audit list': {
      synopsis: 'audit list [--entity ID_OR_CODE] [--since ISO_INSTANT] [--limit N] [--after AUDIT_ID] [--all]',
      details: [
        'newest first; each record with the fields it changed. A page of --limit (1 to 1000, default 100); the',
        'command for the next page follows on stderr (--after the last record\'s id); --all: every record, streamed',
        'a bulk import is one record with the entity merchants',
      ],
      example: 'audit list --entity qris --limit 5',
    },
  }],
  ['database', {
    init: {
      synopsis: 'init',
      details: ['create the database (DATA_DIR, or DATABASE_URL\'s schema) as the server\'s first start does: migrations,', 'master key, and the demo data unless SEED_DEMO_DATA=false. Refused when there is one already'],
      example: 'DATA_DIR=/var/lib/payment-gateway SEED_DEMO_DATA=false npm run admin -- init',
    },
    migrate: {
      synopsis: 'migrate',
      details: [
        'apply pending migrations (and the demo seed of an empty database, SEED_DEMO_DATA) once, under the boot',
        'lock; also `npm run migrate`. Replicas with MIGRATE_ON_START=false wait for it',
      ],
      example: 'DATABASE_URL=postgres://gateway@db.internal/gateway npm run migrate',
    },
  }],
];

const HELP_OF = new Map(COMMAND_HELP.flatMap(([, commands]) => Object.entries(commands)));

const FOOTER = `Every command that changes something accepts --actor NAME (recorded in the audit trail; default: the OS user).
Output: --json (data on stdout), --tz ZONE (times in that IANA zone; default TZ or the system's),
        --wide (every column, nothing shortened; tables fit 120 columns otherwise).
Database: DATA_DIR (default: the project's own data/ directory), or DATABASE_URL for Postgres; the
          database acted on is printed on stderr. Only init and migrate create one.
Environment: the server's (DATA_DIR, DATABASE_URL, MASTER_KEY, SEED_DEMO_DATA, ...).
Exit: 0 ok, 1 refused (invalid value, unknown id, conflict, no database), 2 usage.
`;

const HELP = `usage: npm run admin -- <command> [options] [--json]
       npm run admin -- help COMMAND   (or COMMAND --help): that command alone

${COMMAND_HELP.map(([group, commands]) => `${group}\n${Object.values(commands).map((h) => [`  ${h.synopsis}`, ...(h.details ?? []).map((l) => `      ${l}`)].join('\n')).join('\n')}`).join('\n')}

${FOOTER}`;

/** One command's help: synopsis, its options, one example, the exit codes. */
function commandHelp(command: string): string {
  const h = HELP_OF.get(command)!;
  const common = CHANGING.has(command) ? '--actor NAME, --json, --tz ZONE, --wide' : '--json, --tz ZONE, --wide';
  return `usage: npm run admin -- ${h.synopsis}
${(h.details ?? []).map((l) => `  ${l}\n`).join('')}  also: ${common}

example:
  ${h.example.includes('npm run') ? h.example : `npm run admin -- ${h.example}`}

Exit: 0 ok, 1 refused, 2 usage.
`;
}

class UsageError extends Error {}

const COMMANDS = new Set(HELP_OF.keys());

/** Commands that may create a database; every other one refuses to run without one. */
const INITIALISING = new Set(['init', 'migrate']);

/** Commands that change something: they take --actor (contract §7 audit). */
const CHANGING = new Set([
  'merchant create', 'merchant import', 'merchant set-kyc', 'merchant set-category', 'merchant enable-channel', 'merchant disable-channel',
  'key create', 'key revoke', 'channel create', 'channel update', 'currency set', 'fee set', 'fee cancel',
  'merchant origins', 'merchant channels', 'quote-keys rotate', 'channel instructions',
]);

type Options = NonNullable<ParseArgsConfig['options']>;
const str = { type: 'string' } as const;

const SETTING_FLAGS: Options = {
  'fee-percentage': str,
  'fee-value': str,
  'additional-fee-percentage': str,
  'additional-fee-value': str,
  min: str,
  max: str,
  'fee-to-customer': str,
};
const CHANNEL_FLAGS: Options = { ...SETTING_FLAGS, name: str, currency: str, status: str, 'requires-kyc': str, 'sort-order': str, group: str, 'name-id': str, 'name-en': str };

/** Flag name → service field name. */
const FIELD: Record<string, string> = {
  'fee-percentage': 'feePercentage',
  'fee-value': 'feeValue',
  'additional-fee-percentage': 'additionalFeePercentage',
  'additional-fee-value': 'additionalFeeValue',
  min: 'minAmount',
  max: 'maxAmount',
  'fee-to-customer': 'feeChargedToCustomer',
  'requires-kyc': 'requiresKyc',
  'sort-order': 'sortOrder',
  'name-id': 'nameId',
  'name-en': 'nameEn',
  name: 'name',
  currency: 'currency',
  status: 'status',
  code: 'code',
};

function fields(values: Record<string, unknown>, flags: Options): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const flag of Object.keys(flags)) if (values[flag] !== undefined) out[FIELD[flag] ?? flag] = values[flag];
  return out;
}

/** A column of {@link table}: its title; `wide`: shown only with --wide (`narrow`: only without); `shrink`: may be cut down to this width. */
type Column = string | { title: string; wide?: boolean; narrow?: boolean; shrink?: number };

/** Width tables keep to without --wide (a common terminal, and readable in a log or a ticket). */
const TABLE_WIDTH = 120;

/**
 * A plain text table: header row, dashes, rows; columns padded to their widest cell. Without --wide, columns
 * marked `wide` are left out and, while the table is wider than {@link TABLE_WIDTH}, the widest shrinkable
 * column loses a character (a cut cell ends in "…"); ids and amounts are never shrinkable.
 */
function table(io: Io, columns: Column[], rows: Cell[][]): string {
  const t = tableLayout(io, columns, rows);
  return t.head + t.rows(rows);
}

type Cell = string | number | boolean | null | undefined;

/**
 * The layout of {@link table}, measured on `rows`: its header (with the dashes) and a formatter for any rows
 * in the same column widths, so a listing streamed page by page (`--all`) keeps the first page's columns
 * (a longer cell later is cut to them, or with --wide overflows its column).
 */
function tableLayout(io: Io, columns: Column[], rows: Cell[][]): { head: string; rows: (more: Cell[][]) => string } {
  const specs = columns.map((c) => (typeof c === 'string' ? { title: c } : c));
  const keep = specs.map((c, i) => ((io.wide ? !c.narrow : !c.wide) ? i : -1)).filter((i) => i >= 0);
  const headers = keep.map((i) => specs[i]!.title);
  // Escaped before the widths are measured, so a cell holding an escape still lines up.
  const cellsOf = (more: Cell[][]) => more.map((r) => keep.map((i) => (r[i] === null || r[i] === undefined ? '-' : escapeUnprintable(String(r[i])))));
  const cells = cellsOf(rows);
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  if (!io.wide) {
    const floor = keep.map((i, k) => Math.max(specs[i]!.title.length, specs[i]!.shrink ?? widths[k]!));
    const total = () => widths.reduce((sum, w) => sum + w, 0) + 2 * (widths.length - 1);
    while (total() > TABLE_WIDTH) {
      let widest = -1;
      widths.forEach((w, k) => {
        if (w > floor[k]! && (widest === -1 || w > widths[widest]!)) widest = k;
      });
      if (widest === -1) break;
      widths[widest]! -= 1;
    }
  }
  const fit = (c: string, w: number) => (!io.wide && c.length > w ? `${c.slice(0, w - 1)}…` : c);
  const line = (r: string[]) => r.map((c, i) => fit(c, widths[i]!).padEnd(widths[i]!)).join('  ').trimEnd();
  return {
    head: `${line(headers)}\n${line(widths.map((w) => '-'.repeat(w)))}\n`,
    rows: (more) => cellsOf(more).map((r) => `${line(r)}\n`).join(''),
  };
}

/**
 * Everything the CLI prints goes through these: whatever a database holds (a name stored before control and
 * format characters were refused, or written by hand) reaches the terminal as `\uXXXX`, never as an escape
 * sequence or a bidirectional override (src/shared/operator-text.ts). JSON output too: inside its strings
 * the escape is JSON's own, so the value read back is unchanged.
 */
function writeOut(text: string): void {
  process.stdout.write(escapeUnprintable(text, true));
}
function writeErr(text: string): void {
  process.stderr.write(escapeUnprintable(text, true));
}

interface Io {
  out: (text: string) => void;
  json: boolean;
  /** --wide: every column, nothing cut. */
  wide: boolean;
  /** The IANA zone times are shown in (--tz, else TZ, else the system's). */
  zone: string;
}

function emit(io: Io, value: unknown, human: () => string): void {
  io.out(io.json ? `${JSON.stringify(value, null, 2)}\n` : human());
}

/** The zone --tz names (refused as a usage error when the runtime does not know it), else TZ, else the system's. */
function zoneOf(flag: string | undefined): string {
  const zone = flag ?? (process.env.TZ || undefined);
  try {
    const resolved = new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone;
    // A system without a configured zone resolves to Etc/Unknown, which no formatter accepts: UTC is what it means.
    return resolved === 'Etc/Unknown' ? 'UTC' : resolved;
  } catch {
    throw new UsageError(`${flag !== undefined ? '--tz' : 'TZ'}: unknown time zone ${JSON.stringify(zone)} (an IANA name such as Asia/Jakarta or UTC)`);
  }
}

/**
 * An ISO instant in the operator's zone: `2099-01-05 00:00` in tables (the zone named under them), with seconds
 * and the offset (`2099-01-05 00:00:00 +07:00`) in sentences and with --wide.
 */
function when(io: Io, iso: string | null | undefined, full = io.wide): string | null {
  if (iso === null || iso === undefined) return null;
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone: io.zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23', timeZoneName: 'longOffset' })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  const day = `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
  if (!full) return day;
  const offset = parts.timeZoneName === 'GMT' ? '+00:00' : String(parts.timeZoneName).replace('GMT', '');
  return `${day}:${parts.second} ${offset}`;
}

/** The line under a table with times: which zone they are in and how to choose another. */
function zoneNote(io: Io): string {
  return `(times in ${io.zone}${io.wide ? '' : '; --wide for seconds and offsets'}; --tz ZONE for another)\n`;
}

/**
 * A merchant with its name: `Name (id)` with --wide; else `3f1c9a52 Name`, the id's first 8 characters first,
 * so a column cut to fit 120 characters still shows which merchant (and the id to look for).
 */
function merchantLabel(io: Io, names: Map<string, string>, id: string): string {
  const name = names.get(id);
  if (name === undefined) return id;
  return io.wide ? `${name} (${id})` : `${id.slice(0, 8)} ${name}`;
}

function feeTable(io: Io, list: FeeRuleView[], names: Map<string, string>): string {
  // Without --wide: scope and the four settings fold into FOR and SETTINGS so the table fits 120 columns.
  const settings = (r: FeeRuleView) =>
    [r.minFee && `min ${r.minFee}`, r.maxFee && `max ${r.maxFee}`, r.taxPercentage && `tax ${r.taxPercentage}%`, r.customerShare && `customer ${r.customerShare}%`].filter(Boolean).join(', ') || '-';
  const target = (r: FeeRuleView) => (r.merchantId ? merchantLabel(io, names, r.merchantId) : (r.category ?? '(channel default)'));
  return (
    table(
      io,
      [
        'RULE ID',
        'STATE',
        { title: 'SCOPE', wide: true },
        { title: 'FOR', shrink: 12 },
        { title: 'BANDS', shrink: 19 },
        { title: 'SETTINGS', narrow: true, shrink: 10 },
        { title: 'MIN FEE', wide: true },
        { title: 'MAX FEE', wide: true },
        { title: 'TAX %', wide: true },
        { title: 'CUSTOMER %', wide: true },
        'EFFECTIVE FROM',
        { title: 'CREATED', wide: true },
      ],
      list.map((r) => [
        r.id,
        r.state,
        r.scope,
        io.wide || r.scope !== 'CATEGORY' ? target(r) : `category ${r.category}`,
        r.bandsText,
        settings(r),
        r.minFee ?? '-',
        r.maxFee ?? '-',
        r.taxPercentage ?? '-',
        r.customerShare ?? '-',
        when(io, r.effectiveFrom),
        when(io, r.createdAt),
      ]),
    ) + zoneNote(io)
  );
}

/**
 * `text` cut into lines of at most `width` characters, each ending after a comma where one falls in its
 * second half: the lines joined again are exactly `text` (nothing dropped, nothing added).
 */
function wrapWhole(text: string, width: number): string[] {
  const lines: string[] = [];
  let rest = text;
  while (rest.length > width) {
    const comma = rest.lastIndexOf(',', width - 1);
    const cut = comma >= width / 2 ? comma + 1 : width;
    lines.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  lines.push(rest);
  return lines;
}

/**
 * The audit trail: one table row per record (a merchant's name beside its id), then what it changed, one
 * field a line (`auditChanges`: `field: before → after`, `+ field: value` for a field that appeared, `- field:
 * value` for one that went; a created record lists only the fields it has a value for), values as JSON wrapped
 * to the terminal's width. `--json` gives the whole records as data.
 */
function auditTable(io: Io, list: AuditEntry[], names: Map<string, string>): string {
  const head = table(
    io,
    ['AT', { title: 'ACTOR', shrink: 12 }, 'ACTION', 'ENTITY', { title: 'NAME', shrink: 12 }],
    list.map((a) => [when(io, a.at), a.actor, a.action, a.entity, names.get(a.entity) ?? '']),
  ).split('\n');
  const indent = 6;
  // The terminal's width, at most the tables' 120 columns unless --wide.
  const terminal = process.stdout.columns || Number(process.env.COLUMNS) || TABLE_WIDTH;
  const width = Math.max(40, (io.wide ? terminal : Math.min(terminal, TABLE_WIDTH)) - indent);
  const json = (v: unknown) => (v === undefined ? '-' : JSON.stringify(v));
  const lines = (c: AuditChange): string[] => {
    const text = !('before' in c) ? `+ ${c.field}: ${json(c.after)}` : !('after' in c) ? `- ${c.field}: ${json(c.before)}` : `${c.field}: ${json(c.before)} → ${json(c.after)}`;
    return wrapWhole(text, width).map((line, i) => `${' '.repeat(i === 0 ? 4 : indent)}${line}`);
  };
  const out = [head[0]!, head[1]!];
  list.forEach((a, i) => {
    // On a creation or deletion an unset (null) field is not news: only the values the record has are listed.
    const changes = auditChanges(a.before, a.after).filter((c) => !((a.before === null && c.after === null) || (a.after === null && c.before === null)));
    out.push(head[i + 2]!, ...(changes.length === 0 ? ['    (no field changed)'] : changes.flatMap(lines)));
  });
  return `${out.join('\n')}\n${zoneNote(io)}`;
}

function channelTable(io: Io, list: CatalogueChannel[]): string {
  return table(
    io,
    // Short headers and yes/no: thirteen columns within 120 (CUST PAYS: the fee is charged to the customer; ENABLED: for how many merchants).
    ['CODE', { title: 'NAME', shrink: 12 }, 'STATUS', 'CUR', 'FEE %', 'FEE', 'ADD %', 'ADD FEE', 'MIN', 'MAX', 'CUST PAYS', 'KYC', 'ENABLED'],
    list.map((c) => [
      c.code,
      c.name,
      c.status,
      c.currency,
      c.feePercentage,
      c.feeValue,
      c.additionalFeePercentage,
      c.additionalFeeValue,
      c.minAmount,
      c.maxAmount,
      c.feeChargedToCustomer ? 'yes' : 'no',
      c.requiresKyc ? 'yes' : 'no',
      c.enabledFor,
    ]),
  );
}

function merchantChannelTable(io: Io, list: MerchantChannelView[]): string {
  const show = (v: MerchantChannelView, k: keyof MerchantChannelView['effective']) => `${v.effective[k]}${v.overrides[k] !== undefined ? '*' : ''}`;
  return (
    table(
      io,
      ['CODE', 'STATUS', 'FEE %', 'FEE', 'ADD %', 'ADD FEE', 'MIN', 'MAX', 'TO CUSTOMER'],
      list.map((v) => [
        v.code,
        v.status,
        show(v, 'feePercentage'),
        show(v, 'feeValue'),
        show(v, 'additionalFeePercentage'),
        show(v, 'additionalFeeValue'),
        show(v, 'minAmount'),
        show(v, 'maxAmount'),
        show(v, 'feeChargedToCustomer'),
      ]),
    ) + '(* = merchant override)\n'
  );
}

/** Largest instructions file read (far above 8 × 15 steps of 300 characters as JSON). */
const MAX_INSTRUCTIONS_FILE_BYTES = 256 * 1024;

/** Largest import file read: a million merchants of about 100 bytes a line, with room (held whole while checked). */
const MAX_IMPORT_FILE_BYTES = 256 * 1024 * 1024;

/**
 * An operator's file (or standard input for `-`) as UTF-8 text; unreadable, larger than `maxBytes` or not
 * UTF-8 is a refusal naming the file.
 */
async function readOperatorFile(file: string, maxBytes: number, kind: string): Promise<string> {
  const name = file === '-' ? 'standard input' : file;
  let bytes: Buffer;
  try {
    if (file === '-') {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > maxBytes) throw new AdminError('invalid', [`${name}: more than ${maxBytes} bytes; split it`]);
        chunks.push(chunk);
      }
      bytes = Buffer.concat(chunks);
    } else {
      const size = fs.statSync(file).size;
      if (size > maxBytes) throw new AdminError('invalid', [`${name}: ${size} bytes; at most ${maxBytes}`]);
      bytes = fs.readFileSync(file);
    }
  } catch (err) {
    if (err instanceof AdminError) throw err;
    throw new AdminError('invalid', [`${name}: cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`]);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new AdminError('invalid', [`${name}: not UTF-8 ${kind} (save it as UTF-8)`]);
  }
}

/** An operator's instructions file as JSON; unreadable, too large or not JSON is a refusal naming the file. */
async function readInstructionsFile(file: string): Promise<unknown> {
  const text = await readOperatorFile(file, MAX_INSTRUCTIONS_FILE_BYTES, 'JSON');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new AdminError('invalid', [`${file}: not UTF-8 JSON (${(err as Error).message})`]);
  }
}

/** The flags of a paged listing (contract §15). */
const PAGE_FLAGS: Options = { limit: str, after: str, all: { type: 'boolean' } };

/** `all` (stream every row) or `page`; --all with --limit is a usage error (it has no page size to choose). */
function pageMode(values: Record<string, unknown>): 'all' | 'page' {
  if (values.all !== true) return 'page';
  if (values.limit !== undefined) throw new UsageError('give --limit or --all, not both');
  return 'all';
}

/** A command line an operator can paste (arguments quoted for a POSIX shell when they need it). */
function commandLine(words: string[]): string {
  return `npm run admin -- ${words.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ')}`;
}

/**
 * One page of a listing: the rows (a JSON array with --json), then, when there are more, the command for
 * the next page on stderr (beside the database line: stdout stays the rows, for a pipe or a script; the
 * cursor is also the last row's id).
 */
function emitPage(io: Io, items: unknown[], next: string | null, again: (cursor: string) => string, human: () => string): void {
  io.out(io.json ? `${JSON.stringify(items, null, 2)}\n` : human());
  if (next !== null) writeErr(`more: ${again(next)}  (or --all for every one)\n`);
}

/** Rows a streamed listing formats and writes at once. */
const STREAM_CHUNK = 1000;

/**
 * Every row of `items`, written a chunk at a time and waiting for stdout to drain, so memory stays bounded
 * by a chunk whatever the number of rows. --json writes one JSON array, formatted as the paged output is.
 */
async function streamRows<T>(io: Io, items: AsyncIterable<T>, human: (chunk: T[], first: boolean) => string | Promise<string>, footer = ''): Promise<void> {
  let chunk: T[] = [];
  let first = true;
  const flush = async () => {
    if (chunk.length === 0 && !first) return;
    const text = io.json ? (first ? '[' : ',') + chunk.map((item) => `\n${JSON.stringify(item, null, 2).replace(/\n/g, '\n  ').replace(/^/, '  ')}`).join(',') : await human(chunk, first);
    first = false;
    chunk = [];
    io.out(text);
    if (process.stdout.writableNeedDrain) await once(process.stdout, 'drain');
  };
  for await (const item of items) {
    chunk.push(item);
    if (chunk.length === STREAM_CHUNK) await flush();
  }
  if (io.json && first && chunk.length === 0) return io.out('[]\n');
  if (chunk.length > 0 || first) await flush();
  io.out(io.json ? '\n]\n' : footer);
}

/** `items` as text written a chunk at a time (a large import's --json lines), waiting for stdout to drain. */
async function writeChunked<T>(io: Io, items: T[], format: (chunk: T[]) => string): Promise<void> {
  for (let i = 0; i < items.length; i += STREAM_CHUNK) {
    io.out(format(items.slice(i, i + STREAM_CHUNK)));
    if (process.stdout.writableNeedDrain) await once(process.stdout, 'drain');
  }
}

/** Instructions as an operator reads them: per language, titled sections of numbered steps. */
function instructionsText(r: { code: string; instructions: Partial<Record<string, readonly { key: string; title: string; steps: readonly string[] }[] | null>> }): string {
  let out = '';
  for (const [locale, sections] of Object.entries(r.instructions)) {
    out += `${r.code} (${locale})${sections ? '' : ': none'}\n`;
    for (const s of sections ?? []) {
      out += `  [${s.key}] ${s.title}\n`;
      s.steps.forEach((step, i) => (out += `    ${i + 1}. ${step}\n`));
    }
  }
  return out;
}

function positional(positionals: string[], index: number, name: string): string {
  const v = positionals[index];
  if (v === undefined || v.trim() === '') throw new UsageError(`missing ${name}`);
  return v;
}

function required(values: Record<string, unknown>, flag: string): string {
  const v = values[flag];
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`--${flag} is required`);
  return v;
}

/** Every missing option of a command in one usage error (all problems at once, like validation). */
function requiredAll(values: Record<string, unknown>, flags: string[]): void {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- values[f] is re-read, so the typeof narrowing does not carry over for tsc
  const missing = flags.filter((f) => typeof values[f] !== 'string' || (values[f] as string).trim() === '');
  if (missing.length === 1) throw new UsageError(`--${missing[0]} is required`);
  if (missing.length > 1) throw new UsageError(`${missing.map((f) => `--${f}`).join(', ')} are required`);
}

/** Edit distance (insertions, deletions, substitutions, adjacent transpositions) for "did you mean". */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * Node's parseArgs words an unknown option as `Unknown option '--stauts'. To specify a positional argument
 * starting with a '-', place it at the end of the command after '--', as in '-- "--stauts"` (quotes
 * nested in quotes): an operator needs the command's options and the likely one instead. Checked before
 * parseArgs, with the same reading of `--name=value` and of everything after `--`.
 */
function refuseUnknownOptions(argv: string[], options: Options, command: string): void {
  const known = Object.keys(options);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return;
    if (!arg.startsWith('-') || arg === '-') continue;
    const name = arg.replace(/^--?/, '').split('=')[0]!;
    if (arg.startsWith('--') && known.includes(name)) {
      if (options[name]!.type === 'string' && !arg.includes('=')) i++; // its value, whatever it looks like
      continue;
    }
    const close = known.map((k) => ({ k, d: editDistance(name, k) })).filter(({ k, d }) => d <= Math.max(1, Math.floor(k.length / 3))).sort((x, y) => x.d - y.d)[0];
    const hint = close ? `; did you mean --${close.k}?` : '';
    throw new UsageError(`unknown option ${arg.split('=')[0]} for "${command}"${hint}\n"${command}" takes: ${known.map((k) => `--${k}`).join(', ')}`);
  }
}

/** parseArgs' other refusals, worded without its nested quotes. */
function usageErrorOf(err: unknown): UsageError | null {
  if (!(err instanceof TypeError) || !('code' in err) || !String(err.code).startsWith('ERR_PARSE_ARGS')) return null;
  const option = /'(--?[\w-]+)/.exec(err.message)?.[1] ?? 'an option';
  if (err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return new UsageError(/does not take/.test(err.message) ? `${option} takes no value` : `${option} needs a value`);
  return new UsageError(err.message.replace(/'/g, ''));
}

/**
 * `--fee-percentage -1` as `--fee-percentage=-1`: parseArgs reads a value starting with "-" as the next option
 * and reports the flag as missing its value; a negative number is a value, refused by the service for what it
 * is ("must not be negative").
 */
function negativeValuesJoined(argv: string[], options: Options): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return [...out, ...argv.slice(i)];
    const next = argv[i + 1];
    if (arg.startsWith('--') && options[arg.slice(2)]?.type === 'string' && next !== undefined && /^-(\d|\.\d)/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

/** Parse one command's arguments strictly (unknown flags and extra positionals are usage errors). */
function args(argv: string[], options: Options, positionalCount: number, command: string) {
  const all: Options = { ...options, json: { type: 'boolean' }, tz: str, wide: { type: 'boolean' } };
  refuseUnknownOptions(argv, all, command);
  let parsed;
  try {
    parsed = parseArgs({ args: negativeValuesJoined(argv, all), options: all, allowPositionals: true, strict: true });
  } catch (err) {
    throw usageErrorOf(err) ?? err;
  }
  if (parsed.positionals.length > positionalCount) throw new UsageError(`unexpected argument: ${parsed.positionals[positionalCount]}`);
  return parsed as { values: Record<string, unknown>; positionals: string[] };
}

/** The actor for the audit trail: --actor NAME (validated), else the operating-system user. */
function actorOf(argv: string[]): string {
  const i = argv.findIndex((a) => a === '--actor' || a.startsWith('--actor='));
  if (i === -1) return osUser();
  const value = argv[i]!.startsWith('--actor=') ? argv[i]!.slice('--actor='.length) : argv[i + 1];
  if (value === undefined || value.trim() === '' || value.startsWith('--')) throw new UsageError('--actor needs a NAME');
  // The actor is written into the audit trail and printed by `audit list`: as typed, or refused.
  const problem = unprintableProblem(value);
  if (problem !== null) throw new UsageError(`--actor ${problem}`);
  if (value.length > 100) throw new UsageError('--actor: at most 100 printable characters');
  return value.trim();
}

/** Run one command against an open service. Returns nothing; throws UsageError / AdminError. */
async function runCommand(service: AdminService, argv: string[], out: (text: string) => void): Promise<void> {
  const [group, action, ...rest] = argv;
  const command = `${group ?? ''} ${action ?? ''}`.trim();
  const run = (options: Options, positionalCount: number) => {
    const parsed = args(rest, CHANGING.has(command) ? { ...options, actor: str } : options, positionalCount, command);
    const io: Io = { out, json: parsed.values.json === true, wide: parsed.values.wide === true, zone: zoneOf(parsed.values.tz as string | undefined) };
    return { ...parsed, io };
  };

  switch (command) {
    case 'merchant create': {
      const { values, io } = run({ name: str, kyc: str, category: str, channels: str }, 0);
      const channels = typeof values.channels === 'string' ? (values.channels === 'all' ? 'all' : values.channels.split(',').map((c) => c.trim()).filter(Boolean)) : undefined;
      const m = await service.createMerchant({ name: required(values, 'name'), kycStatus: values.kyc, category: values.category as string | undefined, channels });
      emit(io, m, () => `Created merchant ${m.id} (${m.name}, KYC ${m.kycStatus}, category ${m.category}).\n`);
      return;
    }
    case 'merchant origins': {
      // `merchant origins list|add|remove MERCHANT_ID [ORIGIN]`: the sub-command is the first positional.
      const { values, positionals, io } = run({ 'allow-insecure-http': { type: 'boolean' } }, 3);
      const sub = positional(positionals, 0, 'list|add|remove');
      const merchantId = positional(positionals, 1, 'MERCHANT_ID');
      if (sub === 'list') {
        if (positionals.length > 2) throw new UsageError(`unexpected argument: ${positionals[2]}`);
        const origins = await service.listOrigins(merchantId);
        emit(io, { merchantId, origins }, () => (origins.length === 0 ? `Merchant ${merchantId} has no allowed origins.\n` : `${origins.join('\n')}\n`));
        return;
      }
      if (sub !== 'add' && sub !== 'remove') throw new UsageError(`unknown origins command "${sub}": use list, add or remove`);
      const origin = positional(positionals, 2, 'ORIGIN');
      if (sub === 'add') {
        const r = await service.addOrigin(merchantId, origin, { allowInsecureHttp: values['allow-insecure-http'] === true });
        // A punycode host is shown in Unicode too: the operator confirms it is the site meant (a look-alike is not).
        emit(io, r, () => `${r.origin}${r.unicode === undefined ? '' : ` (in Unicode: ${r.unicode}; check it is the host you mean)`} is now an allowed origin of merchant ${merchantId}.\n`);
      } else {
        if (values['allow-insecure-http'] !== undefined) throw new UsageError('--allow-insecure-http belongs to "merchant origins add"');
        const r = await service.removeOrigin(merchantId, origin);
        emit(io, r, () => `${r.origin} is no longer an allowed origin of merchant ${merchantId}.\n`);
      }
      return;
    }
    case 'merchant set-category': {
      const { positionals, io } = run({}, 2);
      const m = await service.setCategory(positional(positionals, 0, 'MERCHANT_ID'), positional(positionals, 1, 'CODE'));
      emit(io, m, () => `Merchant ${m.id} category is now ${m.category}.\n`);
      return;
    }
    case 'fee set': {
      const { values, positionals, io } = run(
        { merchant: str, category: str, bands: str, 'effective-from': str, 'allow-unused-category': { type: 'boolean' }, 'min-fee': str, 'max-fee': str, tax: str, 'customer-share': str, replace: { type: 'boolean' } },
        1,
      );
      if (values.merchant !== undefined && values.category !== undefined) throw new UsageError('give --merchant or --category, not both');
      const r = await service.setFee({
        channel: positional(positionals, 0, 'CODE'),
        merchantId: values.merchant as string | undefined,
        category: values.category as string | undefined,
        bands: required(values, 'bands'),
        effectiveFrom: values['effective-from'] as string | undefined,
        allowUnusedCategory: values['allow-unused-category'] === true,
        minFee: values['min-fee'] as string | undefined,
        maxFee: values['max-fee'] as string | undefined,
        taxPercentage: values.tax as string | undefined,
        customerShare: values['customer-share'] as string | undefined,
        replace: values.replace === true,
      });
      // The rule id alone on stdout, so scripts can capture it (RULE=$(admin fee set ...)).
      emit(io, r, () => `${r.id}\n`);
      if (!io.json) writeErr(`${r.state === 'scheduled' ? 'Scheduled' : 'Set'} ${r.scope} rule on ${r.channel} (${r.bandsText}) effective from ${when(io, r.effectiveFrom, true)} (${io.zone}).\n`);
      return;
    }
    case 'fee list': {
      const { values, positionals, io } = run({ merchant: str, ...PAGE_FLAGS }, 1);
      const code = positional(positionals, 0, 'CODE');
      const merchant = values.merchant as string | undefined;
      const all = pageMode(values) === 'all';
      // A channel's rules are read whole (about all of its merchants); the output pages like the other lists.
      const page = await service.feesPage(code, { merchantId: merchant, after: values.after as string | undefined, limit: all ? Number.MAX_SAFE_INTEGER : (values.limit as string | undefined) });
      const names = io.json ? new Map<string, string>() : await service.merchantNames(page.rules.flatMap((r) => (r.merchantId ? [r.merchantId] : [])));
      const again = (cursor: string) => commandLine(['fee', 'list', code, ...(merchant ? ['--merchant', merchant] : []), ...(values.limit ? ['--limit', values.limit as string] : []), '--after', cursor]);
      emitPage(io, page.rules, page.next, again, () => feeTable(io, page.rules, names));
      return;
    }
    case 'fee cancel': {
      const { positionals, io } = run({}, 1);
      const r = await service.cancelFee(positional(positionals, 0, 'RULE_ID'));
      emit(io, r, () => `Cancelled rule ${r.id} on ${r.channel} (it would have started at ${when(io, r.effectiveFrom, true)}, ${io.zone}).\n`);
      return;
    }
    case 'audit list': {
      const { values, io } = run({ entity: str, since: str, ...PAGE_FLAGS }, 0);
      const filter = { entity: values.entity as string | undefined, since: values.since as string | undefined, after: values.after as string | undefined };
      const again = (cursor: string) => commandLine(['audit', 'list', ...(filter.entity ? ['--entity', filter.entity] : []), ...(filter.since ? ['--since', filter.since] : []), ...(values.limit ? ['--limit', values.limit as string] : []), '--after', cursor]);
      if (pageMode(values) === 'all') {
        // Streamed: each chunk is its own table (the change lines under each record set no common widths).
        await streamRows(io, service.allAudit(filter), async (chunk, first) => {
          const names = await service.merchantNames(chunk.map((a) => a.entity));
          const text = auditTable(io, chunk, names);
          return first ? text : text.split('\n').slice(2).join('\n');
        });
        return;
      }
      const page = await service.auditPage({ ...filter, limit: values.limit as string | undefined });
      const names = io.json ? new Map<string, string>() : await service.merchantNames(page.entries.map((a) => a.entity));
      emitPage(io, page.entries, page.next, again, () => auditTable(io, page.entries, names));
      return;
    }
    case 'merchant list': {
      const { values, io } = run(PAGE_FLAGS, 0);
      const columns: Column[] = ['MERCHANT ID', { title: 'NAME', shrink: 16 }, 'KYC', { title: 'CATEGORY', shrink: 10 }, 'CREATED'];
      const row = (m: MerchantRecord): Cell[] => [m.id, m.name, m.kycStatus, m.category, when(io, m.createdAt)];
      const after = values.after as string | undefined;
      if (pageMode(values) === 'all') {
        let layout: ReturnType<typeof tableLayout> | undefined;
        await streamRows(io, service.allMerchants(after), (chunk) => {
          const first = layout === undefined;
          layout ??= tableLayout(io, columns, chunk.map(row));
          return (first ? layout.head : '') + layout.rows(chunk.map(row));
        }, zoneNote(io));
        return;
      }
      const page = await service.merchantsPage({ after, limit: values.limit as string | undefined });
      const again = (cursor: string) => commandLine(['merchant', 'list', ...(values.limit ? ['--limit', values.limit as string] : []), '--after', cursor]);
      emitPage(io, page.merchants, page.next, again, () => table(io, columns, page.merchants.map(row)) + zoneNote(io));
      return;
    }
    case 'merchant import': {
      const { values, positionals, io } = run({ update: { type: 'boolean' }, 'batch-size': str }, 1);
      const file = positional(positionals, 0, 'FILE (or - for standard input)');
      const batchText = values['batch-size'] as string | undefined;
      const batchSize = batchText === undefined ? undefined : Number(batchText);
      if (batchSize !== undefined && (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 100_000)) throw new UsageError(`--batch-size must be a whole number from 1 to 100000, got ${batchText}`);
      const text = await readOperatorFile(file, MAX_IMPORT_FILE_BYTES, 'CSV');
      const options = { source: file === '-' ? 'standard input' : path.basename(file), batchSize };
      const lines = (items: object[]) => items.map((m) => `${JSON.stringify(m)}\n`).join('');
      if (values.update === true) {
        const r = await service.updateMerchantsFromFile(text, options);
        if (io.json) return writeChunked(io, r.merchants, lines);
        const moved = (counts: Record<string, number>) => Object.entries(counts).map(([k, n]) => `${k} ${n}`).join(', ');
        const changes = r.merchants.reduce((acc, m) => (m.changed.forEach((c) => (acc[c] = (acc[c] ?? 0) + 1)), acc), {} as Record<string, number>);
        io.out(`Updated ${r.count} merchant${r.count === 1 ? '' : 's'} from ${options.source} in ${r.batches} transaction${r.batches === 1 ? '' : 's'}${r.unchanged > 0 ? `; ${r.unchanged} already as given` : ''}.\n${Object.keys(changes).length > 0 ? `Changed: ${moved(changes)}.\n` : ''}`);
        return;
      }
      const r = await service.importMerchants(text, options);
      if (io.json) return writeChunked(io, r.merchants, lines);
      io.out(
        [
          `Imported ${r.count} merchant${r.count === 1 ? '' : 's'} from ${options.source} in ${r.batches} transaction${r.batches === 1 ? '' : 's'} (audit list --entity merchants shows the record).`,
          'No API keys were created: issue a merchant\'s key with key create --merchant MERCHANT_ID when it goes live',
          '(--json prints every merchantId with its name; merchant list pages through all merchants).',
          '',
        ].join('\n'),
      );
      return;
    }
    case 'merchant set-kyc': {
      const { positionals, io } = run({}, 2);
      const m = await service.setKyc(positional(positionals, 0, 'MERCHANT_ID'), positional(positionals, 1, 'STATUS'));
      emit(io, m, () => `Merchant ${m.id} KYC is now ${m.kycStatus}.\n`);
      return;
    }
    case 'merchant channels': {
      // `merchant channels MERCHANT_ID` lists; `merchant channels order MERCHANT_ID CODES|--reset` orders (contract §12).
      const { values, positionals, io } = run({ reset: { type: 'boolean' } }, 3);
      if (positionals[0] !== 'order') {
        if (values.reset !== undefined) throw new UsageError('--reset belongs to "merchant channels order"');
        if (positionals.length > 1) throw new UsageError(`unexpected argument: ${positionals[1]}`);
        const list = await service.merchantChannels(positional(positionals, 0, 'MERCHANT_ID'));
        emit(io, list, () => merchantChannelTable(io, list));
        return;
      }
      const merchantId = positional(positionals, 1, 'MERCHANT_ID');
      const reset = values.reset === true;
      if (reset && positionals[2] !== undefined) throw new UsageError('give CODE[,CODE...] or --reset, not both');
      const codes = reset ? null : positional(positionals, 2, 'CODE[,CODE...] (or --reset)').split(',');
      const r = await service.setChannelOrder(merchantId, codes);
      emit(io, r, () => `${r.order === null ? `Merchant ${merchantId} lists its channels in the default order` : `Merchant ${merchantId} lists ${r.order.join(', ')} first`}: ${r.channels.join(', ')}.\n`);
      return;
    }
    case 'merchant enable-channel': {
      const { values, positionals, io } = run({ ...SETTING_FLAGS, replace: { type: 'boolean' } }, 2);
      const merchantId = positional(positionals, 0, 'MERCHANT_ID');
      const v = await service.enableChannel(merchantId, positional(positionals, 1, 'CODE'), fields(values, SETTING_FLAGS), { replace: values.replace === true });
      emit(io, v, () => `Channel ${v.code} is enabled for merchant ${merchantId}.\n${merchantChannelTable(io, [v])}`);
      return;
    }
    case 'merchant disable-channel': {
      const { positionals, io } = run({}, 2);
      const merchantId = positional(positionals, 0, 'MERCHANT_ID');
      const code = positional(positionals, 1, 'CODE');
      await service.disableChannel(merchantId, code);
      emit(io, { merchantId, code: code.toLowerCase(), enabled: false }, () => `Channel ${code} is disabled for merchant ${merchantId}.\n`);
      return;
    }
    case 'key create': {
      const { values, io } = run({ merchant: str, mode: str }, 0);
      const k = await service.createKey(required(values, 'merchant'), values.mode ?? 'test');
      emit(io, { apiKey: k.apiKey, apiSecret: k.apiSecret, merchantId: k.merchantId }, () =>
        [
          `Created ${k.mode} key for merchant ${k.merchantId}.`,
          '',
          `  API key:    ${k.apiKey}`,
          `  API secret: ${k.apiSecret}`,
          '',
          'The secret is shown only now; it is stored encrypted and cannot be displayed again.',
          '',
          'To use it: export the pair, then sign a request (npm run sign prints the three X-SERVICE-* headers and a curl):',
          `  export API_KEY=${k.apiKey} API_SECRET=${k.apiSecret}`,
          '  npm run sign -- GET /v1/payments/channel',
          'The SDK takes the same pair: createClient({ baseUrl, apiKey: process.env.API_KEY, apiSecret: process.env.API_SECRET }).',
          '',
        ].join('\n'),
      );
      return;
    }
    case 'key list': {
      const { values, io } = run({ merchant: str }, 0);
      const list = await service.listKeys(required(values, 'merchant'));
      emit(io, list, () =>
        table(io, ['API KEY', 'MODE', 'STATUS', 'CREATED', 'REVOKED'], list.map((k) => [k.id, k.mode, k.revokedAt ? 'revoked' : 'active', when(io, k.createdAt), when(io, k.revokedAt)])) + zoneNote(io),
      );
      return;
    }
    case 'key revoke': {
      const { positionals, io } = run({}, 1);
      const k = await service.revokeKey(positional(positionals, 0, 'API_KEY'));
      emit(io, k, () => `Revoked ${k.id} (merchant ${k.merchantId}) at ${when(io, k.revokedAt, true)} (${io.zone}).\n`);
      return;
    }
    case 'quote-keys list': {
      const { io } = run({}, 0);
      const keys = await service.listQuoteKeys();
      emit(io, keys, () => table(io, ['KEY ID', 'STATE', 'CREATED', 'RETIRED', 'LONGEST TTL', 'PUBLISHED UNTIL'], keys.map((k) => [k.id, k.state, when(io, k.createdAt), when(io, k.retiredAt), k.maxTtlSeconds === null ? 'unknown (86400)' : String(k.maxTtlSeconds), when(io, k.publishedUntil)])) + zoneNote(io));
      return;
    }
    case 'quote-keys rotate': {
      const { io } = run({}, 0);
      const r = await service.rotateQuoteKey();
      emit(io, r, () => `Quote key ${r.signing.id} signs now${r.retired ? `; ${r.retired.id} retired at ${when(io, r.retired.retiredAt, true)} (${io.zone}; published until its last quote has expired: ${when(io, r.retired.publishedUntil, true)})` : ''}.
`);
      return;
    }
    case 'channel list': {
      const { io } = run({}, 0);
      const list = await service.listChannels();
      emit(io, list, () => channelTable(io, list));
      return;
    }
    case 'channel create': {
      const flags = { ...CHANNEL_FLAGS, code: str };
      const { values, io } = run(flags, 0);
      requiredAll(values, ['code', 'name', 'currency', 'min', 'max']);
      const c = await service.createChannel(fields(values, flags) as Parameters<AdminService['createChannel']>[0]);
      emit(io, c, () => `Created channel ${c.code}.\n${channelTable(io, [c])}`);
      return;
    }
    case 'channel update': {
      const { values, positionals, io } = run({ ...CHANNEL_FLAGS, replace: { type: 'boolean' } }, 1);
      const c = await service.updateChannel(positional(positionals, 0, 'CODE'), fields(values, CHANNEL_FLAGS), { replace: values.replace === true });
      emit(io, c, () => `Updated channel ${c.code}.\n${channelTable(io, [c])}`);
      return;
    }
    case 'channel instructions': {
      // `channel instructions set|show CODE`: the sub-command is the first positional.
      const { values, positionals, io } = run({ locale: str, file: str }, 2);
      const sub = positional(positionals, 0, 'set|show');
      const code = positional(positionals, 1, 'CODE');
      if (sub === 'show') {
        if (values.file !== undefined) throw new UsageError('--file belongs to "channel instructions set"');
        if (values.actor !== undefined) throw new UsageError('--actor belongs to "channel instructions set"');
        const r = await service.showInstructions(code, values.locale);
        emit(io, r, () => instructionsText(r));
        return;
      }
      if (sub !== 'set') throw new UsageError(`unknown instructions command "${sub}": use set or show`);
      const locale = required(values, 'locale');
      const r = await service.setInstructions(code, locale, await readInstructionsFile(required(values, 'file')));
      if (!io.json) process.stderr.write(`Set the ${locale} instructions of ${r.code}.\n`);
      emit(io, r, () => instructionsText(r));
      return;
    }
    case 'currency list': {
      const { io } = run({}, 0);
      const list = await service.listCurrencies();
      emit(io, list, () => table(io, ['CURRENCY', 'MINOR UNITS'], list.map((c) => [c.code, c.minorUnits])));
      return;
    }
    case 'currency set': {
      const { values, positionals, io } = run({ 'minor-units': str }, 1);
      const c = await service.setCurrency({ code: positional(positionals, 0, 'CODE'), minorUnits: required(values, 'minor-units') });
      emit(io, c, () => `Currency ${c.code} has ${c.minorUnits} minor-unit decimals.\n`);
      return;
    }
    default:
      throw new UsageError(command === '' ? 'missing command' : `unknown command: ${command}`);
  }
}

/** The command `argv` names: one word (`init`, `migrate`) or two (`fee set`). */
function commandOf(argv: string[]): string {
  return INITIALISING.has(argv[0] ?? '') || argv[0] === 'help' ? argv[0]! : argv.slice(0, 2).join(' ');
}

/** "unknown command" with the closest command(s), or the group's commands when only the group was right. */
function unknownCommand(command: string): string {
  const words = command.split(' ');
  const close = [...COMMANDS].map((c) => ({ c, d: editDistance(command, c) })).filter(({ d }) => d <= Math.max(1, Math.floor(command.length / 5))).sort((x, y) => x.d - y.d);
  if (close.length > 0) return `unknown command: ${command}; did you mean ${close[0]!.c}?`;
  const group = [...COMMANDS].filter((c) => c.startsWith(`${words[0]} `));
  if (group.length > 0) return `unknown command: ${command}; "${words[0]}" takes: ${group.map((c) => c.split(' ')[1]).join(', ')}`;
  return command === '' ? 'missing command' : `unknown command: ${command}`;
}

/** Where the CLI looks, and how to point it elsewhere, for the refusal of a missing database. */
function noDatabaseMessage(err: MissingDatabaseError, dataDirFromEnv: boolean, databaseUrl: string | null): string {
  const where = databaseUrl ? 'DATABASE_URL points at it.' : dataDirFromEnv ? 'DATA_DIR points there.' : "DATA_DIR is not set, so the CLI looked in the project's own data directory.";
  return [
    `error: ${err.message}; nothing was created.`,
    `${where} The CLI acts only on an existing database: set DATA_DIR to the server's data directory`,
    '(or DATABASE_URL to its Postgres database), or create a new one with "npm run admin -- init".',
  ].join('\n');
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0) {
    writeOut(HELP);
    return 2;
  }
  const command = commandOf(argv);
  // `help COMMAND` and `COMMAND --help`: that command alone; `help` (or --help without a command): all of them.
  if (command === 'help' || argv.includes('--help') || argv.includes('-h')) {
    const asked = command === 'help' ? argv.slice(1).filter((a) => !a.startsWith('-')).join(' ') : command;
    if (asked === '' || (command !== 'help' && !COMMANDS.has(asked))) {
      writeOut(HELP);
      return 0;
    }
    if (!COMMANDS.has(asked)) {
      writeErr(`error: ${unknownCommand(asked)}\nrun "npm run admin -- help" for the commands.\n`);
      return 2;
    }
    writeOut(commandHelp(asked));
    return 0;
  }
  // Usage errors need no database: report them before touching DATA_DIR.
  if (!COMMANDS.has(command)) {
    writeErr(`error: ${unknownCommand(command)}\nrun "npm run admin -- help" for the commands.\n`);
    return 2;
  }
  // Without DATA_DIR the CLI acts on the project's own data/, wherever it is started from (the server's default,
  // ./data, is relative to where `npm start` runs: the project root).
  const dataDirFromEnv = process.env.DATA_DIR !== undefined && process.env.DATA_DIR !== '';
  if (!dataDirFromEnv) process.env.DATA_DIR = projectPath('data');
  let data: BootedData;
  let config;
  try {
    config = loadConfig();
    const where = describeDatabase(config);
    // Which database this command acts on, before anything happens to it (stderr: stdout stays the command's).
    writeErr(`database: ${where}${dataDirFromEnv || config.databaseUrl ? '' : ' (DATA_DIR not set: the project\'s own data directory)'}\n`);
    if (command === 'init') {
      // Only where there is nothing yet: read-only look (no migration, no write), refused when a database answers.
      let existing: BootedData | null = null;
      try {
        existing = await bootData({ ...config, migrateOnStart: false, seedDemoData: false }, { watch: false, mustExist: true });
      } catch (err) {
        if (!(err instanceof MissingDatabaseError)) throw err;
      }
      if (existing) {
        await existing.store.close();
        writeErr(`error: there is a database already (${where}); nothing was changed. "npm run admin -- migrate" brings it to this version.\n`);
        return 1;
      }
    }
    const initialising = INITIALISING.has(command);
    // One-shot: no change watching; the config's DATABASE_URL selects Postgres exactly as for the server.
    // `init` and `migrate` are the migration step itself, whatever MIGRATE_ON_START says; only they seed.
    data = await bootData(initialising ? { ...config, migrateOnStart: true } : { ...config, seedDemoData: false }, { watch: false, mustExist: !initialising });
  } catch (err) {
    if (err instanceof MissingDatabaseError) {
      writeErr(`${noDatabaseMessage(err, dataDirFromEnv, config?.databaseUrl ?? null)}\n`);
      return 1;
    }
    if (err instanceof ConfigError || err instanceof BootError) {
      writeErr(`error: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
  try {
    if (data.seeded) writeErr(`note: the database was empty and has been seeded with demo data (as npm start does); credentials in ${data.credentialsFile}\n`);
    if (command === 'init') {
      writeOut(`Created the database ${describeDatabase(config)}${data.seeded ? ` with demo data (credentials in ${data.credentialsFile})` : ''}.\n`);
      return 0;
    }
    if (command === 'migrate') {
      writeOut(`Database ${data.store.location} is at this version's schema.\n`);
      return 0;
    }
    await runCommand(new AdminService(data.store.admin, data.secretBox, { actor: actorOf(argv) }), argv, (text) => writeOut(text));
    return 0;
  } catch (err) {
    if (err instanceof AdminError) {
      for (const p of err.problems) writeErr(`error: ${p}\n`);
      return 1;
    }
    if (err instanceof UsageError) {
      writeErr(`error: ${err.message}\nrun "npm run admin -- help ${command}" for its options.\n`);
      return 2;
    }
    throw err;
  } finally {
    await data.store.close();
  }
}

refuseUnsupportedNode('payment-gateway-admin');
process.exitCode = await main(process.argv.slice(2));
