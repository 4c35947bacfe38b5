/**
 * The HTTP server process behind `npm start` (src/main.ts): configuration, data, the app's one pipeline on
 * node:http, graceful shutdown. In three steps (prepareServer, appOptionsOf, listen), so that a harness
 * composes the same server around another app (bench/servers/project-ablation.ts) without a second copy.
 */
import cluster from 'node:cluster';
import fs from 'node:fs';
import { createServer } from 'node:http';
import type { Logger } from 'pino';
import { createApp, type App, type AppOptions } from './app.js';
import { routeTemplateOf } from '../shared/routes.js';
import { observeClientErrors } from '../pipeline/transport/client-errors.js';
import { BootError, bootData, type BootedData } from './boot.js';
import { ConfigError, loadConfig, type Config } from '../shared/config.js';
import { firstCallHelp } from './first-call.js';
import { createLogger } from '../shared/logger.js';
import { tuneHeap } from './heap.js';
import { installHeapProbe } from './heap-probe.js';
import type { Tracing } from '../shared/tracing.js';

function fail(message: string): never {
  process.stderr.write(`\nerror: ${message}\n\n`);
  process.exit(1);
}

/** A server process once its configuration is valid and DATA_DIR (or DATABASE_URL) is ready. */
export interface ServerStart {
  config: Config;
  logger: Logger;
  data: BootedData;
  /** Contract §13: the OpenTelemetry SDK, started only when an OTLP endpoint is configured; null = off. */
  tracing: Tracing | null;
}

/**
 * Validate configuration, prepare DATA_DIR and serve HTTP until SIGTERM/SIGINT (one process, or one cluster
 * worker). Exits non-zero with every problem printed when it cannot start.
 */
export async function serve(): Promise<void> {
  const start = await prepareServer();
  listen(start, createApp(appOptionsOf(start)));
}

/** Configuration, logger and data of a server process; exits non-zero with every problem printed. */
export async function prepareServer(): Promise<ServerStart> {
  tuneHeap();
  installHeapProbe(); // npm run soak only (SOAK_HEAP_PROBE=1 with an IPC channel)
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
  const logger = createLogger(config);
  // Started before the data so that a catch-up at start is traced too; its packages are loaded only now and only when on.
  let tracing = null;
  if (config.tracing !== null) {
    try {
      tracing = await (await import('./tracing.js')).startTracing(config.tracing, logger);
    } catch (err) {
      fail(`tracing could not start: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  let data;
  try {
    data = await bootData(config, { logger, tracer: tracing?.tracer });
  } catch (err) {
    if (err instanceof BootError) fail(err.message);
    throw err;
  }

  return { config, logger, data, tracing };
}

/** Where this process listens, once it does: the quotes' `iss` when PUBLIC_BASE_URL is not set. */
let listeningBaseUrl: string | undefined;

/** The options a server's app runs with: all of them from the validated configuration. */
export function appOptionsOf({ config, logger, data, tracing }: ServerStart): AppOptions {
  return {
    tracing,
    store: data.store,
    secretBox: data.secretBox,
    logger,
    maxSkewSeconds: config.maxSkewSeconds,
    bodyLimitBytes: config.bodyLimitBytes,
    metrics: { token: config.metricsToken, collectDefault: true },
    abuseLimits: config.graphqlLimits,
    answerCacheEntries: config.answerCacheEntries,
    caches: { keys: config.caches.keys, restLists: config.caches.restLists },
    liveUpdates: { maxStreamsPerKey: config.subscriptionsPerKey, maxOpenStreams: config.maxOpenStreams },
    trustedProxies: config.trustedProxies,
    // Until the server listens (port 0: chosen then), the configured address; `listen` sets the real one.
    quotes: { issuer: () => config.publicBaseUrl ?? listeningBaseUrl ?? `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`, ttlSeconds: config.quoteTtlSeconds },
    rateLimit: { keyRatePerSecond: config.rateLimit.perSecond, keyBurst: config.rateLimit.burst, authFailuresPerMinute: config.rateLimit.authFailuresPerMinute, sessionMaxCost: config.rateLimit.sessionMaxCost, merchantShareCapacity: config.rateLimit.merchantShareCapacity, redisUrl: config.redisUrl },
  };
}

/** Serve `app` on the configured address until SIGTERM/SIGINT, then drain (below) and exit. */
export function listen({ config, logger, data, tracing }: ServerStart, app: App): void {
  // Every request through Yoga's one pipeline (src/pipeline/transport/node-transport.ts).
  const server = createServer(app.handler);
  // Behind a load balancer the server must outlive the balancer's idle timeout on a kept-alive socket,
  // or the balancer may send a request on a socket this process is closing (a reset, a 502 for a client).
  server.keepAliveTimeout = config.keepAliveTimeoutMs;
  // headersTimeout must exceed keepAliveTimeout (Node closes sockets whose next request headers have not
  // arrived within headersTimeout, counted from the start of the idle period).
  server.headersTimeout = config.keepAliveTimeoutMs + 5_000;
  observeClientErrors(server, { logger, registry: app.metricsRegistry, routeOf: routeTemplateOf }); // 408/400/431 logged and counted
  server.on('error', (err: NodeJS.ErrnoException) => {
    void data.store.close();
    fail(err.code === 'EADDRINUSE' ? `port ${config.port} on ${config.host} is already in use (set PORT).` : err.message);
  });

  server.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const baseUrl = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
    listeningBaseUrl = baseUrl;
    logger.info(
      { baseUrl, node: process.version, pipeline: app.pluginNames, trustedProxies: config.trustedProxies?.entries, database: `${data.store.engine} ${data.store.location}`, dataDir: config.dataDir, masterKey: data.masterKeySource, seeded: data.seeded !== null, demoCredentials: fs.existsSync(data.credentialsFile) ? data.credentialsFile : undefined },
      'listening',
    );
    // Demo mode only (the credentials file exists): the banner holds a signed demo request, so it goes to
    // stderr and stdout stays the log stream, JSON lines without any signature.
    // With WORKERS > 1 only the first worker prints the banner.
    // Behind a balancer (PUBLIC_BASE_URL) the banner sends people to the balancer, never around it.
    if (fs.existsSync(data.credentialsFile) && (cluster.worker?.id ?? 1) === 1) process.stderr.write(firstCallHelp(config.publicBaseUrl ?? baseUrl, data.credentialsFile, data.seeded !== null, baseUrl));
  });

  /**
   * Graceful shutdown (SIGTERM/SIGINT): /ready turns 503 at once; requests are still served for
   * SHUTDOWN_DELAY_MS (SIGTERM only: the time a health-checking balancer needs to stop routing here;
   * SIGINT is a person at a terminal, nothing routes by /ready), then the listener closes (no new
   * connections) while in-flight requests finish; then the database closes and the process exits 0.
   * Connections still busy after SHUTDOWN_TIMEOUT_MS are cut. Both bounds together stay under 10 s
   * (validated in src/shared/config.ts).
   */
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      // An impatient second Ctrl-C: give up on draining.
      logger.warn({ signal }, 'second signal: exiting now');
      server.closeAllConnections();
      void app.close();
      process.exit(1);
    }
    stopping = true;
    app.beginShutdown();
    const delayMs = signal === 'SIGTERM' ? config.shutdownDelayMs : 0;
    logger.info({ signal, delayMs }, 'shutting down: not ready');
    setTimeout(() => {
      server.close(() => {
        clearInterval(reaper);
        // The last spans are flushed too (bounded by the exporter's timeout, within the shutdown budget).
        void Promise.all([app.close(), data.store.close(), tracing?.shutdown()])
          .catch((err) => logger.warn({ err }, 'closing the database or the rate-limit store failed'))
          .finally(() => {
            logger.info('stopped');
            process.exit(0);
          });
      });
      // A keep-alive connection becomes idle when its in-flight response is done; close it then.
      const reaper = setInterval(() => server.closeIdleConnections(), 50);
      server.closeIdleConnections();
      // Logged once the listening socket is closed: from this line on, new connections are refused.
      logger.info('listener closed; waiting for in-flight requests');
      setTimeout(() => {
        logger.warn('shutdown timed out; closing remaining connections');
        server.closeAllConnections();
      }, config.shutdownTimeoutMs).unref();
    }, delayMs);
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
