/**
 * The repository's own documentation is complete and self-contained: every
 * relative link in README.md, SECURITY.md and docs/*.md resolves to a file
 * inside the repository (a fresh clone has nothing beside it), and
 * docs/API.md carries the SVC1 test vectors and the error table exactly as
 * the code has them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../src/shared/errors.js';
import { SVC1_VECTORS, VECTOR_KEY, VECTOR_SECRET, VECTOR_TIMESTAMP } from '../helpers/svc1-vectors.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DOCS = ['README.md', 'SECURITY.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const api = fs.readFileSync(path.join(ROOT, 'docs/API.md'), 'utf8');

/** Relative link targets of a Markdown file (http(s), mailto and in-page anchors excluded). */
function relativeLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((l) => !/^(https?:|mailto:|#)/.test(l));
}

describe('documentation links', () => {
  it.each(DOCS)('%s links only to files inside the repository', (file) => {
    const dir = path.dirname(path.join(ROOT, file));
    for (const link of relativeLinks(fs.readFileSync(path.join(ROOT, file), 'utf8'))) {
      const target = path.resolve(dir, link.split('#')[0]!);
      expect(path.relative(ROOT, target).startsWith('..'), `${file} → ${link} leaves the repository`).toBe(false);
      expect(fs.existsSync(target), `${file} → ${link} does not exist`).toBe(true);
    }
  });

  it('the README points to docs/API.md for wire formats, signing, errors and fee rules', () => {
    expect(relativeLinks(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'))).toContain('docs/API.md');
  });
});

describe('docs/API.md', () => {
  it('carries the three SVC1 test vectors with their key, secret and timestamp', () => {
    for (const value of [VECTOR_KEY, VECTOR_SECRET, VECTOR_TIMESTAMP]) expect(api).toContain(value);
    for (const [method, target, body, signature] of SVC1_VECTORS) {
      const row = api.split('\n').find((l) => l.includes(signature));
      expect(row, signature).toBeDefined();
      expect(row).toContain(`${method} ${target}`);
      if (body) expect(row).toContain(body);
    }
  });

  it('has the error table of src/shared/errors.ts, every code with its status', () => {
    const rows = [...api.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1], Number(m[2])]);
    expect(Object.fromEntries(rows)).toEqual(ERROR_STATUS);
  });

  it('states the fee formula and both fee-bearer rules', () => {
    expect(api).toContain('fee = round_half_up(amount × fee_percentage / 100) + fee_value');
    expect(api).toContain('`totalAmount = amount + fee + additionalFee`, `getBalance = amount`');
    expect(api).toContain('`totalAmount = amount`, `getBalance = amount − fee − additionalFee`');
  });
});
