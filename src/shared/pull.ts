/**
 * Pulling an async sequence's next step with a callback instead of a promise (live updates at a
 * sale's peak).
 *
 * An open stream spends nearly all its life waiting for the next change. Waiting through async iterators
 * (`await iterator.next()` in each layer: the change feed's watcher, the shared execution, the event stream)
 * keeps a chain of promises, reactions and suspended async functions per stream, about 900 bytes made anew
 * at every change and alive until the next one: at 15,000 checkout pages the garbage collector promoted 27 MB
 * per change (6 MB with the layers pulled; `--trace-gc-nvp`), and the old generation they filled had to be
 * marked (about half a second of CPU) every few changes. A layer that can be pulled keeps only its receiver
 * while waiting.
 *
 * The protocol: `pull(receiver)` asks for the next step; exactly one of `pulled(step)` or `pullFailed(err)`
 * is called once for it, never synchronously inside `pull` (so a receiver that pulls again from `pulled`
 * does not recurse), and a layer has at most one pull outstanding. It is the same sequence `next()` gives:
 * a layer offers both, and a consumer uses `pull` when its source has it.
 */
export interface PullReceiver<T> {
  pulled(step: IteratorResult<T>): void;
  pullFailed(error: unknown): void;
}

/** A source whose next step can be pulled ({@link PullReceiver}). */
export interface PullSource<T> {
  pull(receiver: PullReceiver<T>): void;
}

/** True when `source` can be pulled. */
export function isPullSource<T>(source: unknown): source is PullSource<T> {
  return typeof (source as Partial<PullSource<T>> | null)?.pull === 'function';
}
