/**
 * V8 heap tuning for the server process (and each cluster worker, which runs src/app/server.ts too).
 *
 * Under sustained load about 2 MB/s of short-lived request objects still reach the old generation (those
 * in flight when a young-generation collection runs). With V8's default growth factor (up to 4× the live
 * heap) a full collection could wait until the heap had grown by ~80 MB: peak RSS varied between 130 and
 * 200 MB from run to run of the same benchmark. Capping growth at 1.5× the live heap (~30 MB live here)
 * triggers those cheap full collections earlier. Measured on the REST channel list, 50 connections, 20 s
 * per run: peak RSS 185, 180, 148, 137, 197 MB by default; 133–141 MB in 9 runs with the cap;
 * throughput and p99 within the run-to-run noise.
 * bench/results/2026-11-22-fast-path-run.md has the measurements.
 */
import v8 from 'node:v8';

/** Heap growth factor after a full GC: 1 + HEAP_GROWING_PERCENT / 100. */
export const HEAP_GROWING_PERCENT = 50;

/** Applies the flags once at start-up; an explicit `--heap-growing-percent` on the command line wins. */
export function tuneHeap(): void {
  if (process.execArgv.some((a) => a.startsWith('--heap-growing-percent'))) return;
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
