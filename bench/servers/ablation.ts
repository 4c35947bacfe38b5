/** The pipeline with some plugins left out by name, for the ablations of bench:ab and bench:pipeline. */
import type { PipelineEntry } from '../../src/app/app.js';

/** `pipeline` without the plugins named in `names`; a name that is not in it is refused (a typo would measure nothing). */
export function withoutPlugins(pipeline: readonly PipelineEntry[], names: readonly string[]): PipelineEntry[] {
  const known = new Set(pipeline.map((e) => e.name));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length > 0) throw new Error(`--without: no plugin named ${unknown.join(', ')} (the pipeline has ${[...known].join(', ')})`);
  const left = new Set(names);
  return pipeline.filter((e) => !left.has(e.name));
}
