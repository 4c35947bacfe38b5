/**
 * Heap reading for `npm run soak` (scripts/soak.ts) only: the soak starts the server with `--expose-gc`,
 * an IPC channel and SOAK_HEAP_PROBE=1, and asks `{ type: 'heap', id }`; the server runs a full GC and
 * answers `{ type: 'heap', id, heapUsed }`. Without all three (every normal start) this does nothing, and
 * nothing reaches it over HTTP: only the parent process holds the channel.
 */
export function installHeapProbe(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (process.env.SOAK_HEAP_PROBE !== '1' || !process.send || !gc) return;
  process.on('message', (message: { type?: string; id?: number }) => {
    if (message?.type !== 'heap') return;
    gc();
    // A second pass after the finalizers queued by the first (WeakMap/WeakRef entries) have run.
    setImmediate(() => {
      gc();
      process.send?.({ type: 'heap', id: message.id, heapUsed: process.memoryUsage().heapUsed });
    });
  });
  // The channel must not keep a stopping server alive.
  process.channel?.unref();
}
