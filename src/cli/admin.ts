/**
 * `npm run admin -- <command>` (also the `payment-gateway-admin` bin):
 * operator commands on the server's DATA_DIR. A thin layer over
 * AdminService: it parses arguments, calls one service method, prints the
 * result (a table, or JSON with --json).
 *
 * Start-up is the server's own (loadConfig + bootData): same environment
 * variables, same master-key check, and an empty database is migrated and
 * seeded exactly as `npm start` would have done (SEED_DEMO_DATA), so it does
 * not matter whether the CLI or the server touches a new DATA_DIR first.
 *
 * Exit codes: 0 done; 1 refused (validation, unknown merchant/channel/key,
 * conflict) or cannot start (configuration, master key); 2 usage error.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { BootError, bootData, type BootedData } from '../app/boot.js';
import { ConfigError, loadConfig } from '../shared/config.js';
import { auditChanges, type AuditChange } from '../modules/admin/audit-changes.js';
import { AdminError, AdminService, osUser, type AuditEntry, type CatalogueChannel, type FeeRuleView, type MerchantChannelView } from '../modules/admin/service.js';

const HELP = `usage: npm run admin -- <command> [options] [--json]

merchants
  merchant create --name NAME [--kyc approved|pending|rejected] [--category CODE] [--channels all|CODE,CODE]
  merchant list
  merchant set-kyc MERCHANT_ID approved|pending|rejected
  merchant set-category MERCHANT_ID CODE             pricing category (default regular)
  merchant channels MERCHANT_ID
  merchant channels order MERCHANT_ID CODE[,CODE...]  list these channels first, in this order (the others
                                                     follow in the default order); unknown codes are refused
  merchant channels order MERCHANT_ID --reset        back to the default order
  merchant enable-channel MERCHANT_ID CODE [overrides]
  merchant disable-channel MERCHANT_ID CODE
  merchant origins list MERCHANT_ID                  allowed web origins for checkout sessions
  merchant origins add MERCHANT_ID ORIGIN [--allow-insecure-http]
  merchant origins remove MERCHANT_ID ORIGIN
      ORIGIN: scheme://host[:port], no path; http only for localhost/127.0.0.1 unless --allow-insecure-http
      overrides: --fee-percentage N --fee-value N --additional-fee-percentage N
                 --additional-fee-value N --min N --max N --fee-to-customer true|false
                 (the value "default" clears an override)
keys
  key create --merchant MERCHANT_ID [--mode test|live]   prints the secret once
  key list --merchant MERCHANT_ID                       never shows secrets
  key revoke API_KEY
channels
  channel list
  channel create --code CODE --name NAME --currency CUR --min N --max N
                 [--status S] [--fee-percentage N] [--fee-value N]
                 [--additional-fee-percentage N] [--additional-fee-value N]
                 [--fee-to-customer true|false] [--requires-kyc true|false] [--sort-order N]
                 [--group GROUP] [--name-id NAME] [--name-en NAME]
  channel update CODE [--status active|offline|maintenance] [--name NAME] [--currency CUR]
                 [--fee-percentage N] [--fee-value N] [--additional-fee-percentage N]
                 [--additional-fee-value N] [--min N] [--max N]
                 [--fee-to-customer true|false] [--requires-kyc true|false] [--sort-order N]
                 [--group GROUP] [--name-id NAME] [--name-en NAME]
      GROUP: qris, virtual_account, ewallet, retail_outlet or card (create: guessed from the code when absent)
      --name-id / --name-en: the name in Indonesian / English ("default": the stored --name applies)
currencies
  currency list
  currency set CODE --minor-units N
pricing rules
  fee set CODE [--merchant MERCHANT_ID | --category CATEGORY] --bands "UPTO:PCT:FIXED,..."
              [--effective-from ISO_INSTANT] [--allow-unused-category]
              [--min-fee N] [--max-fee N] [--tax PCT] [--customer-share PCT]   prints the rule id
      UPTO: inclusive upper bound of the band, "*" for the last band; e.g. --bands "500000:0:0,*:0.3:0"
  fee list CODE [--merchant MERCHANT_ID]             rules in force and scheduled
  fee cancel RULE_ID                                 only before the rule starts
fee quote signing keys (contract §11)
  quote-keys list                                    the key that signs and the retired ones (never key material)
  quote-keys rotate                                  a new key signs on every server within 1 s; the old one stays
                                                     published until its last quote has expired
audit
  audit list [--entity ID_OR_CODE] [--since ISO_INSTANT] [--limit N]   newest first
database
  migrate                                            apply pending migrations (and the demo seed of an empty
                                                     database, SEED_DEMO_DATA) once, under the boot lock; also
                                                     \`npm run migrate\`. Replicas with MIGRATE_ON_START=false wait for it

Every command that changes something accepts --actor NAME (recorded in the audit trail; default: the OS user).

Environment: the server's (DATA_DIR, MASTER_KEY, SEED_DEMO_DATA, ...). Exit: 0 ok, 1 refused, 2 usage.
`;

class UsageError extends Error {}

const COMMANDS = new Set([
  'merchant create', 'merchant list', 'merchant set-kyc', 'merchant channels', 'merchant enable-channel', 'merchant disable-channel',
  'key create', 'key list', 'key revoke', 'channel list', 'channel create', 'channel update', 'currency list', 'currency set',
  'merchant set-category', 'fee set', 'fee list', 'fee cancel', 'audit list',
  'merchant origins', 'migrate', 'quote-keys list', 'quote-keys rotate',
]);

/** Commands that change something: they take --actor (contract §7 audit). */
const CHANGING = new Set([
  'merchant create', 'merchant set-kyc', 'merchant set-category', 'merchant enable-channel', 'merchant disable-channel',
  'key create', 'key revoke', 'channel create', 'channel update', 'currency set', 'fee set', 'fee cancel',
  'merchant origins', 'merchant channels', 'quote-keys rotate',
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

/** A plain text table: header row, dashes, rows; columns padded to their widest cell. */
function table(headers: string[], rows: (string | number | boolean | null | undefined)[][]): string {
  const cells = rows.map((r) => r.map((c) => (c === null || c === undefined ? '-' : String(c))));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n') + '\n';
}

interface Io {
  out: (text: string) => void;
  json: boolean;
}

function emit(io: Io, value: unknown, human: () => string): void {
  io.out(io.json ? `${JSON.stringify(value, null, 2)}\n` : human());
}

function feeTable(list: FeeRuleView[]): string {
  return table(
    ['RULE ID', 'STATE', 'SCOPE', 'FOR', 'BANDS', 'MIN FEE', 'MAX FEE', 'TAX %', 'CUSTOMER %', 'EFFECTIVE FROM', 'CREATED'],
    list.map((r) => [r.id, r.state, r.scope, r.merchantId ?? r.category ?? '(channel default)', r.bandsText, r.minFee ?? '-', r.maxFee ?? '-', r.taxPercentage ?? '-', r.customerShare ?? '-', r.effectiveFrom, r.createdAt]),
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
 * The audit trail: one table row per record, then what it changed, one field a line (`auditChanges`:
 * `field: before → after`, `+ field: value` for a field that appeared, `- field: value` for one that went),
 * values as JSON wrapped to the terminal's width. `--json` gives the whole records as data.
 */
function auditTable(list: AuditEntry[]): string {
  const head = table(['AT', 'ACTOR', 'ACTION', 'ENTITY'], list.map((a) => [a.at, a.actor, a.action, a.entity])).split('\n');
  const indent = 6;
  const width = Math.max(40, (process.stdout.columns || Number(process.env.COLUMNS) || 120) - indent);
  const json = (v: unknown) => (v === undefined ? '-' : JSON.stringify(v));
  const lines = (c: AuditChange): string[] => {
    const text = !('before' in c) ? `+ ${c.field}: ${json(c.after)}` : !('after' in c) ? `- ${c.field}: ${json(c.before)}` : `${c.field}: ${json(c.before)} → ${json(c.after)}`;
    return wrapWhole(text, width).map((line, i) => `${' '.repeat(i === 0 ? 4 : indent)}${line}`);
  };
  const out = [head[0]!, head[1]!];
  list.forEach((a, i) => {
    const changes = auditChanges(a.before, a.after);
    out.push(head[i + 2]!, ...(changes.length === 0 ? ['    (no field changed)'] : changes.flatMap(lines)));
  });
  return `${out.join('\n')}\n`;
}

function channelTable(list: CatalogueChannel[]): string {
  return table(
    ['CODE', 'NAME', 'STATUS', 'CUR', 'FEE %', 'FEE', 'ADD %', 'ADD FEE', 'MIN', 'MAX', 'TO CUSTOMER', 'KYC', 'MERCHANTS'],
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
      c.feeChargedToCustomer,
      c.requiresKyc ? 'required' : 'no',
      c.enabledFor,
    ]),
  );
}

function merchantChannelTable(list: MerchantChannelView[]): string {
  const show = (v: MerchantChannelView, k: keyof MerchantChannelView['effective']) => `${v.effective[k]}${v.overrides[k] !== undefined ? '*' : ''}`;
  return (
    table(
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

/** Parse one command's arguments strictly (unknown flags and extra positionals are usage errors). */
function args(argv: string[], options: Options, positionalCount: number, command: string) {
  const all: Options = { ...options, json: { type: 'boolean' } };
  refuseUnknownOptions(argv, all, command);
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: all, allowPositionals: true, strict: true });
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
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point: the actor is written into the audit trail
  if (value.length > 100 || /[\u0000-\u001f]/.test(value)) throw new UsageError('--actor: at most 100 printable characters');
  return value.trim();
}

/** Run one command against an open service. Returns nothing; throws UsageError / AdminError. */
async function runCommand(service: AdminService, argv: string[], out: (text: string) => void): Promise<void> {
  const [group, action, ...rest] = argv;
  const command = `${group ?? ''} ${action ?? ''}`.trim();
  const run = (options: Options, positionalCount: number) => {
    const parsed = args(rest, CHANGING.has(command) ? { ...options, actor: str } : options, positionalCount, command);
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- the commands read `io` as Io, not as this literal
    return { ...parsed, io: { out, json: parsed.values.json === true } as Io };
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
        emit(io, r, () => `${r.origin} is now an allowed origin of merchant ${merchantId}.\n`);
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
        { merchant: str, category: str, bands: str, 'effective-from': str, 'allow-unused-category': { type: 'boolean' }, 'min-fee': str, 'max-fee': str, tax: str, 'customer-share': str },
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
      });
      // The rule id alone on stdout, so scripts can capture it (RULE=$(admin fee set ...)).
      emit(io, r, () => `${r.id}\n`);
      if (!io.json) process.stderr.write(`${r.state === 'scheduled' ? 'Scheduled' : 'Set'} ${r.scope} rule on ${r.channel} (${r.bandsText}) effective from ${r.effectiveFrom}.\n`);
      return;
    }
    case 'fee list': {
      const { values, positionals, io } = run({ merchant: str }, 1);
      const list = await service.listFees(positional(positionals, 0, 'CODE'), values.merchant as string | undefined);
      emit(io, list, () => feeTable(list));
      return;
    }
    case 'fee cancel': {
      const { positionals, io } = run({}, 1);
      const r = await service.cancelFee(positional(positionals, 0, 'RULE_ID'));
      emit(io, r, () => `Cancelled rule ${r.id} on ${r.channel} (it would have started at ${r.effectiveFrom}).\n`);
      return;
    }
    case 'audit list': {
      const { values, io } = run({ entity: str, since: str, limit: str }, 0);
      const list = await service.listAudit({ entity: values.entity as string | undefined, since: values.since as string | undefined, limit: values.limit as string | undefined });
      emit(io, list, () => auditTable(list));
      return;
    }
    case 'merchant list': {
      const { io } = run({}, 0);
      const list = await service.listMerchants();
      emit(io, list, () => table(['MERCHANT ID', 'NAME', 'KYC', 'CREATED'], list.map((m) => [m.id, m.name, m.kycStatus, m.createdAt])));
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
        emit(io, list, () => merchantChannelTable(list));
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
      const { values, positionals, io } = run(SETTING_FLAGS, 2);
      const merchantId = positional(positionals, 0, 'MERCHANT_ID');
      const v = await service.enableChannel(merchantId, positional(positionals, 1, 'CODE'), fields(values, SETTING_FLAGS));
      emit(io, v, () => `Channel ${v.code} is enabled for merchant ${merchantId}.\n${merchantChannelTable([v])}`);
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
        `Created ${k.mode} key for merchant ${k.merchantId}.\n\n  API key:    ${k.apiKey}\n  API secret: ${k.apiSecret}\n\nThe secret is shown only now; it is stored encrypted and cannot be displayed again.\n`,
      );
      return;
    }
    case 'key list': {
      const { values, io } = run({ merchant: str }, 0);
      const list = await service.listKeys(required(values, 'merchant'));
      emit(io, list, () =>
        table(['API KEY', 'MODE', 'STATUS', 'CREATED', 'REVOKED'], list.map((k) => [k.id, k.mode, k.revokedAt ? 'revoked' : 'active', k.createdAt, k.revokedAt])),
      );
      return;
    }
    case 'key revoke': {
      const { positionals, io } = run({}, 1);
      const k = await service.revokeKey(positional(positionals, 0, 'API_KEY'));
      emit(io, k, () => `Revoked ${k.id} (merchant ${k.merchantId}) at ${k.revokedAt}.\n`);
      return;
    }
    case 'quote-keys list': {
      const { io } = run({}, 0);
      const keys = await service.listQuoteKeys();
      emit(io, keys, () => table(['KEY ID', 'STATE', 'CREATED', 'RETIRED', 'LONGEST TTL', 'PUBLISHED UNTIL'], keys.map((k) => [k.id, k.state, k.createdAt, k.retiredAt, k.maxTtlSeconds === null ? 'unknown (86400)' : String(k.maxTtlSeconds), k.publishedUntil])));
      return;
    }
    case 'quote-keys rotate': {
      const { io } = run({}, 0);
      const r = await service.rotateQuoteKey();
      emit(io, r, () => `Quote key ${r.signing.id} signs now${r.retired ? `; ${r.retired.id} retired at ${r.retired.retiredAt} (published until its last quote has expired: ${r.retired.publishedUntil})` : ''}.
`);
      return;
    }
    case 'channel list': {
      const { io } = run({}, 0);
      const list = await service.listChannels();
      emit(io, list, () => channelTable(list));
      return;
    }
    case 'channel create': {
      const flags = { ...CHANNEL_FLAGS, code: str };
      const { values, io } = run(flags, 0);
      requiredAll(values, ['code', 'name', 'currency', 'min', 'max']);
      const c = await service.createChannel(fields(values, flags) as Parameters<AdminService['createChannel']>[0]);
      emit(io, c, () => `Created channel ${c.code}.\n${channelTable([c])}`);
      return;
    }
    case 'channel update': {
      const { values, positionals, io } = run(CHANNEL_FLAGS, 1);
      const c = await service.updateChannel(positional(positionals, 0, 'CODE'), fields(values, CHANNEL_FLAGS));
      emit(io, c, () => `Updated channel ${c.code}.\n${channelTable([c])}`);
      return;
    }
    case 'currency list': {
      const { io } = run({}, 0);
      const list = await service.listCurrencies();
      emit(io, list, () => table(['CURRENCY', 'MINOR UNITS'], list.map((c) => [c.code, c.minorUnits])));
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

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === 'help' || argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(HELP);
    return argv.length === 0 ? 2 : 0;
  }
  // Usage errors need no database: report them before touching DATA_DIR.
  const command = argv.slice(0, 2).join(' ');
  if (!COMMANDS.has(command)) {
    process.stderr.write(`error: unknown command: ${command}\nrun "npm run admin -- help" for the commands.\n`);
    return 2;
  }
  let data: BootedData;
  try {
    // One-shot: no change watching; the config's DATABASE_URL selects Postgres exactly as for the server.
    // `migrate` is the migration step itself, whatever MIGRATE_ON_START says.
    const config = loadConfig();
    data = await bootData(command === 'migrate' ? { ...config, migrateOnStart: true } : config, { watch: false });
  } catch (err) {
    if (err instanceof ConfigError || err instanceof BootError) {
      process.stderr.write(`error: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
  try {
    if (data.seeded) process.stderr.write(`note: the database was empty and has been seeded with demo data (as npm start does); credentials in ${data.credentialsFile}\n`);
    if (command === 'migrate') {
      process.stdout.write(`Database ${data.store.location} is at this version's schema.\n`);
      return 0;
    }
    await runCommand(new AdminService(data.store.admin, data.secretBox, { actor: actorOf(argv) }), argv, (text) => process.stdout.write(text));
    return 0;
  } catch (err) {
    if (err instanceof AdminError) {
      for (const p of err.problems) process.stderr.write(`error: ${p}\n`);
      return 1;
    }
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\nrun "npm run admin -- help" for the commands.\n`);
      return 2;
    }
    throw err;
  } finally {
    await data.store.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
