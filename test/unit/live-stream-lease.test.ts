/**
 * The lease of a Redis-shared stream slot must outlast two heartbeats (one late renewal must not let a live
 * stream's slot expire): useLiveStreams refuses a shorter one at construction.
 */
import pino from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { useLiveStreams } from '../../src/pipeline/plugins/use-live-streams.js';

const base = { maxStreamsPerKey: 10, heartbeatMs: 100, logger: pino({ level: 'silent' }) };

describe('useLiveStreams lease', () => {
  it('accepts a lease of two heartbeats or more, and has a valid default', () => {
    expect(() => useLiveStreams({ ...base, registry: new Registry(), leaseMs: 200 })).not.toThrow();
    expect(() => useLiveStreams({ ...base, registry: new Registry() })).not.toThrow();
  });

  it('refuses a lease under two heartbeats, or not an integer', () => {
    expect(() => useLiveStreams({ ...base, registry: new Registry(), leaseMs: 199 })).toThrow(/leaseMs/);
    expect(() => useLiveStreams({ ...base, registry: new Registry(), leaseMs: 250.5 })).toThrow(/leaseMs/);
  });
});
