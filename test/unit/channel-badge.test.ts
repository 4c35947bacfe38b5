/**
 * Channel badges (src/pipeline/plugins/use-channel-images.ts): the label is drawn whole (never cut
 * with "…"), long labels on two lines, and every line fits the badge's width at its font size.
 */
import { describe, expect, it } from 'vitest';
import { badgeLabel, renderBadge } from '../../src/pipeline/plugins/use-channel-images.js';
import { DEMO_CHANNELS } from '../../src/modules/admin/demo-seed.js';

function lines(svg: string): { size: number; text: string; squeezed: boolean }[] {
  return [...svg.matchAll(/font-size="(\d+)"([^>]*)>([^<]*)<\/text>/g)].map((m) => ({ size: Number(m[1]), text: m[3]!, squeezed: m[2]!.includes('textLength="144"') }));
}

describe('channel badges', () => {
  it.each([...DEMO_CHANNELS.map((c) => c.name), 'A Very Long Channel Name That Goes On', 'Supercalifragilisticexpialidocious'])('%s: drawn whole, at most two lines, each within the badge', (name) => {
    const drawn = lines(renderBadge('code', name));
    expect(drawn.length).toBeGreaterThan(0);
    expect(drawn.length).toBeLessThanOrEqual(2);
    expect(drawn.map((l) => l.text).join(' ')).toBe(badgeLabel(name));
    expect(drawn.some((l) => l.text.includes('…'))).toBe(false);
    // 0.62 em per glyph is wider than bold Helvetica/Arial's average: the text stays inside 144 of 160 units,
    // or (below 8 units) is squeezed to exactly that width.
    for (const l of drawn) expect(l.squeezed || l.text.length * l.size * 0.62 <= 144, l.text).toBe(true);
  });

  it('a single word too long for the smallest size is squeezed to the width, never cut', () => {
    const [line] = lines(renderBadge('x', 'Supercalifragilisticexpialidocious'));
    expect(line).toMatchObject({ text: 'Supercalifragilisticexpialidocious', size: 8, squeezed: true });
  });

  it('shortens "Virtual Account" to "VA" and keeps the bank, which is then drawn larger', () => {
    expect(badgeLabel('BCA Virtual Account')).toBe('BCA VA');
    const [long] = lines(renderBadge('x', 'Mandiri Virtual Account'));
    expect(long!.text).toBe('Mandiri VA');
    expect(long!.size).toBeGreaterThanOrEqual(20);
  });

  it('a channel whose name differs by language gets a symbol, no words of one language', () => {
    const svg = renderBadge('credit_card', 'Credit Card', { symbol: true });
    expect(svg).not.toContain('<text');
    expect(svg).toContain('aria-label="Credit Card"');
  });
});
