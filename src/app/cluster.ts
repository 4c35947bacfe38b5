/**
 * `WORKERS=n` (n > 1): this process becomes a node:cluster primary that
 * prepares DATA_DIR once (migrations, master key, demo seed; only the master
 * key with MIGRATE_ON_START=false) and then forks
 * n workers, each running the ordinary server (src/app/server.ts `serve`) on the
 * same port (the primary owns the listening socket and hands connections
 * out). The workers share the SQLite file; WAL lets them read concurrently,
 * and every cache is keyed by `PRAGMA data_version`, so a change committed by
 * any process (another worker, the admin CLI) is seen by all of them.
 *
 * The primary restarts a worker that dies unexpectedly, and on SIGTERM/SIGINT
 * forwards the signal so each worker shuts down gracefully, then exits.
 */
import cluster from 'node:cluster';
import { BootError, bootData, prepareMasterKey } from './boot.js';
import { ConfigError, loadConfig } from '../shared/config.js';

/**
 * Run as cluster primary when configured to; returns false when this process
 * should serve itself (WORKERS=1, a worker, or a configuration error, which
 * the normal start reports).
 */
export async function runClusterPrimaryIfConfigured(): Promise<boolean> {
  if (!cluster.isPrimary) return false;
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) return false;
    throw err;
  }
  if (config.workers <= 1) return false;

  // Migrate, create the master key and seed exactly once, before any worker opens the file. With
  // MIGRATE_ON_START=false there is no migration or seed to do: only the master key file, which workers
  // starting together would otherwise race to create; each worker then waits for the schema itself.
  try {
    if (config.migrateOnStart) await (await bootData(config, { watch: false })).store.close();
    else prepareMasterKey(config);
  } catch (err) {
    if (err instanceof BootError) {
      process.stderr.write(`\nerror: ${err.message}\n\n`);
      process.exit(1);
    }
    throw err;
  }

  let stopping = false;
  const fork = () => cluster.fork();
  for (let i = 0; i < config.workers; i++) fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      return;
    }
    process.stderr.write(`worker ${worker.process.pid} exited (${signal ?? code}); starting a replacement\n`);
    setTimeout(fork, 500).unref();
  });
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill(signal);
    setTimeout(() => process.exit(0), 15_000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  return true;
}
