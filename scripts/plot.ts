/**
 * `npm run bench:plot [-- FILE.plot.json …]`: draws benchmark figures as self-contained SVG for the docs.
 *
 * Each input is a small committed data file (bench/results/*.plot.json, every figure copied from a dated
 * result file named in its `source`); the SVG is written beside it with the same name (`.plot.json` →
 * `.svg`), and docs/PERFORMANCE.md embeds it. Without arguments every bench/results/*.plot.json is drawn.
 * The SVG needs nothing else: no script, no font or stylesheet from elsewhere, so it renders the same on
 * GitHub, in an editor's preview and offline.
 *
 * The figure is a horizontal grouped bar chart: one group per row label, one bar per series, and optional
 * reference lines (a target) across every group or inside one group.
 */
import fs from 'node:fs';
import path from 'node:path';

/** A vertical reference line, across the whole chart or (on a group) across that group only. */
interface Mark {
  label: string;
  value: number;
}

interface Group {
  label: string;
  /** One value per series, in the order of `series`; null draws no bar. */
  values: (number | null)[];
  mark?: Mark;
}

interface PlotData {
  title: string;
  /** Date, machine and load, or what else a reader needs to judge the figures. */
  subtitle: string;
  unit: string;
  series: string[];
  groups: Group[];
  marks?: Mark[];
  /** Where the figures come from (a result file); printed under the chart. */
  source: string;
}

/** Colour-blind-safe palette (Okabe–Ito). */
const COLOURS = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00'];
const WIDTH = 820;
const LABEL_W = 210;
const RIGHT_PAD = 70;
const BAR_H = 13;
const GROUP_GAP = 12;
const FONT = 'font-family="Helvetica, Arial, sans-serif"';

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A round axis step giving about five ticks up to `max`. */
function niceStep(max: number): number {
  const raw = max / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw);
  return step ?? 10 * power;
}

function formatNumber(value: number): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: 1 });
}

function validate(data: PlotData, file: string): void {
  const fail = (why: string): never => {
    throw new Error(`${file}: ${why}`);
  };
  if (typeof data.title !== 'string' || typeof data.unit !== 'string' || typeof data.source !== 'string') fail('title, unit and source are required strings');
  if (!Array.isArray(data.series) || data.series.length === 0) fail('series must list at least one name');
  if (!Array.isArray(data.groups) || data.groups.length === 0) fail('groups must list at least one group');
  for (const g of data.groups) {
    if (!Array.isArray(g.values) || g.values.length !== data.series.length) fail(`group "${g.label}" needs one value per series`);
    for (const v of g.values) if (v !== null && !(typeof v === 'number' && Number.isFinite(v) && v >= 0)) fail(`group "${g.label}": values are numbers ≥ 0 or null`);
  }
}

export function renderSvg(data: PlotData): string {
  const marks = data.marks ?? [];
  const values = data.groups.flatMap((g) => [...g.values, g.mark?.value ?? null]).concat(marks.map((m) => m.value));
  const max = Math.max(1, ...values.filter((v): v is number => v !== null));
  const step = niceStep(max);
  const axisMax = Math.ceil(max / step) * step;
  const plotW = WIDTH - LABEL_W - RIGHT_PAD;
  const x = (v: number): number => LABEL_W + (v / axisMax) * plotW;

  // The legend wraps onto as many rows as it needs.
  const legend: { name: string; x: number; row: number }[] = [];
  let lx = LABEL_W;
  let row = 0;
  data.series.forEach((name) => {
    const w = 15 + name.length * 6.2 + 18;
    if (lx > LABEL_W && lx + w > WIDTH) {
      lx = LABEL_W;
      row += 1;
    }
    legend.push({ name, x: lx, row });
    lx += w;
  });
  const top = 74 + row * 16;
  // A group with its own mark gets a row above its bars for the mark's label.
  const markRow = data.groups.some((g) => g.mark) ? 12 : 0;
  const groupH = markRow + data.series.length * BAR_H + GROUP_GAP;
  const plotH = data.groups.length * groupH;
  const height = top + plotH + 62;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${escapeXml(data.title)}">`);
  out.push(`<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`);
  out.push(`<text x="12" y="22" ${FONT} font-size="15" font-weight="bold" fill="#111">${escapeXml(data.title)}</text>`);
  out.push(`<text x="12" y="40" ${FONT} font-size="11" fill="#444">${escapeXml(data.subtitle)}</text>`);

  legend.forEach((l, i) => {
    const ly = 50 + l.row * 16;
    out.push(`<rect x="${l.x}" y="${ly}" width="11" height="11" fill="${COLOURS[i % COLOURS.length]}"/>`);
    out.push(`<text x="${l.x + 15}" y="${ly + 10}" ${FONT} font-size="11" fill="#222">${escapeXml(l.name)}</text>`);
  });

  // Grid and axis.
  for (let v = 0; v <= axisMax + step / 2; v += step) {
    const gx = x(v).toFixed(1);
    out.push(`<line x1="${gx}" y1="${top - 4}" x2="${gx}" y2="${top + plotH}" stroke="#e3e3e3"/>`);
    out.push(`<text x="${gx}" y="${top + plotH + 14}" ${FONT} font-size="10" fill="#555" text-anchor="middle">${formatNumber(v)}</text>`);
  }
  out.push(`<text x="${LABEL_W + plotW / 2}" y="${top + plotH + 30}" ${FONT} font-size="11" fill="#333" text-anchor="middle">${escapeXml(data.unit)}</text>`);

  data.groups.forEach((g, gi) => {
    const gy = top + gi * groupH + markRow;
    out.push(`<text x="${LABEL_W - 8}" y="${gy + (data.series.length * BAR_H) / 2 + 4}" ${FONT} font-size="11" fill="#111" text-anchor="end">${escapeXml(g.label)}</text>`);
    g.values.forEach((v, si) => {
      if (v === null) return;
      const by = gy + si * BAR_H;
      const w = Math.max(0.5, x(v) - LABEL_W);
      out.push(`<rect x="${LABEL_W}" y="${by}" width="${w.toFixed(1)}" height="${BAR_H - 2}" fill="${COLOURS[si % COLOURS.length]}"><title>${escapeXml(`${g.label}, ${data.series[si] ?? ''}: ${formatNumber(v)} ${data.unit}`)}</title></rect>`);
      out.push(`<text x="${(LABEL_W + w + 4).toFixed(1)}" y="${by + BAR_H - 3}" ${FONT} font-size="10" fill="#333" stroke="#ffffff" stroke-width="3" paint-order="stroke">${formatNumber(v)}</text>`);
    });
    if (g.mark) {
      const mx = x(g.mark.value).toFixed(1);
      const y2 = gy + data.series.length * BAR_H;
      out.push(`<line x1="${mx}" y1="${gy - markRow}" x2="${mx}" y2="${y2}" stroke="#b00020" stroke-width="2" stroke-dasharray="4 2"><title>${escapeXml(`${g.mark.label}: ${formatNumber(g.mark.value)} ${data.unit}`)}</title></line>`);
      out.push(`<text x="${(Number(mx) - 4).toFixed(1)}" y="${gy - 3}" ${FONT} font-size="10" fill="#b00020" text-anchor="end">${escapeXml(`${g.mark.label} = ${formatNumber(g.mark.value)}`)}</text>`);
    }
  });

  for (const m of marks) {
    const mx = x(m.value).toFixed(1);
    out.push(`<line x1="${mx}" y1="${top - 6}" x2="${mx}" y2="${top + plotH}" stroke="#b00020" stroke-width="2" stroke-dasharray="6 3"/>`);
    out.push(`<text x="${mx}" y="${top - 9}" ${FONT} font-size="10" fill="#b00020" text-anchor="end">${escapeXml(m.label)}</text>`);
  }

  out.push(`<text x="12" y="${height - 10}" ${FONT} font-size="10" fill="#666">${escapeXml(`Source: ${data.source}. Drawn by scripts/plot.ts.`)}</text>`);
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

function plotFile(file: string): string {
  const data = JSON.parse(fs.readFileSync(file, 'utf8')) as PlotData;
  validate(data, file);
  const svgFile = file.replace(/\.plot\.json$|\.json$/, '') + '.svg';
  fs.writeFileSync(svgFile, renderSvg(data));
  return svgFile;
}

const RESULTS_DIR = path.join(import.meta.dirname, '..', 'bench', 'results');
const files = process.argv.slice(2).filter((a) => a !== '--');
const inputs = files.length > 0
  ? files
  : fs.readdirSync(RESULTS_DIR).filter((f) => f.endsWith('.plot.json')).sort().map((f) => path.join(RESULTS_DIR, f));
if (inputs.length === 0) {
  process.stderr.write(`no *.plot.json in ${RESULTS_DIR}\n`);
  process.exit(2);
}
for (const file of inputs) process.stdout.write(`${path.relative(process.cwd(), plotFile(file))}\n`);
