/**
 * The SDK's (and so the checkout component's) reconnection delays (contract §8b): growing, jittered, capped,
 * and never sooner than the server's Retry-After.
 */
import { describe, expect, it } from 'vitest';
import { MAX_RECONNECT_DELAY_MS, reconnectDelayMs } from '../../src/client/session.js';

describe('reconnectDelayMs', () => {
  it('grows with each attempt, between half and all of 1 s × 2^n, up to the cap', () => {
    for (const [retries, base] of [[0, 1000], [1, 2000], [3, 8000], [10, MAX_RECONNECT_DELAY_MS]] as const) {
      expect(reconnectDelayMs(retries, undefined, () => 0)).toBe(base / 2);
      expect(reconnectDelayMs(retries, undefined, () => 0.999999)).toBe(Math.round(base / 2 + 0.999999 * (base / 2)));
    }
  });

  it('is jittered: a thousand pages of a dead replica do not come back in the same instant', () => {
    const delays = new Set(Array.from({ length: 1000 }, () => reconnectDelayMs(0)));
    expect(delays.size).toBeGreaterThan(300);
    for (const d of delays) {
      expect(d).toBeGreaterThanOrEqual(500);
      expect(d).toBeLessThanOrEqual(1000);
    }
  });

  it("honours Retry-After: never sooner, spread over the second after it", () => {
    expect(reconnectDelayMs(0, 5, () => 0)).toBe(5000);
    expect(reconnectDelayMs(0, 5, () => 0.5)).toBe(5500);
    // A longer grown delay wins over a short Retry-After.
    expect(reconnectDelayMs(4, 1, () => 0)).toBe(16_000 / 2);
    // Nonsense is ignored.
    expect(reconnectDelayMs(0, Number.NaN, () => 0)).toBe(500);
    expect(reconnectDelayMs(0, -3, () => 0)).toBe(500);
  });
});
