/**
 * `npm start`: validate configuration, prepare DATA_DIR, serve HTTP.
 * Exits non-zero with every problem printed when it cannot start.
 */
import cluster from 'node:cluster';
import fs from 'node:fs';
import { createServer } from 'node:http';
import pino from 'pino';
import { createApp } from './app.js';
import { BootError, bootData } from './boot.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { firstCallHelp } from './cli/first-call.js';
import { runClusterPrimaryIfConfigured } from './cluster.js';

function fail(message: string): never {
  process.stderr.write(`\nerror: ${message}\n\n`);
  process.exit(1);
}

function start(): void {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
  // Asynchronous stdout (lines written in one tick go out in one write, promptly): a synchronous write per
  // request log line cost ~6 % of CPU on the hot paths (bench/profile.ts).
  const logger = pino({ level: config.logLevel, base: { service: 'payment-gateway' } }, pino.destination({ dest: 1, sync: false }));

  let data;
  try {
    data = bootData(config);
  } catch (err) {
    if (err instanceof BootError) fail(err.message);
    throw err;
  }

  const app = createApp({
    database: data.database,
    secretBox: data.secretBox,
    logger,
    maxSkewSeconds: config.maxSkewSeconds,
    bodyLimitBytes: config.bodyLimitBytes,
  });
  // The fast path in front of Yoga (src/http/fast-path.ts); everything else is Yoga itself.
  const server = createServer(app.handler);
  server.on('error', (err: NodeJS.ErrnoException) => {
    data.database.close();
    fail(err.code === 'EADDRINUSE' ? `port ${config.port} on ${config.host} is already in use (set PORT).` : err.message);
  });

  server.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const baseUrl = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
    logger.info({ baseUrl, dataDir: config.dataDir, masterKey: data.masterKeySource, seeded: data.seeded !== null }, 'listening');
    // With WORKERS > 1 only the first worker prints the banner.
    if (fs.existsSync(data.credentialsFile) && (cluster.worker?.id ?? 1) === 1) process.stdout.write(firstCallHelp(baseUrl, data.credentialsFile, data.seeded !== null));
  });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      logger.warn('shutdown timed out; closing remaining connections');
      server.closeAllConnections();
    }, 8000);
    force.unref();
    server.close(() => {
      data.database.close();
      logger.info('stopped');
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

// WORKERS > 1: this process is the cluster primary (src/cluster.ts) and the workers run start().
if (!runClusterPrimaryIfConfigured()) start();
