/**
 * Where a worker thread's module is, beside the module that starts it. Running from src/ (tsx, tests) it is the
 * TypeScript source next to the starter; bundled, the starter is part of a bundle in dist/ and the worker is the
 * bundle scripts/build.mjs writes beside every bundle (its WORKERS list: source and bundle name).
 */
export function workerModule(starter: string, source: string, bundle: string): URL {
  return new URL(starter.endsWith('.ts') ? source : bundle, starter);
}
