/**
 * Shared set-up of the baseline servers: the project's own schema and
 * resolvers over the same SQLite file the project server uses, with the
 * approved demo merchant as a fixed principal (the baselines do no auth,
 * which only flatters them). Each baseline is a separate child process.
 */
import { QUOTE_TTL, QuoteService } from '../../src/modules/quotes/service.js';
import path from 'node:path';
import fs from 'node:fs';
import { createServer } from 'node:http';
import { bootData } from '../../src/app/boot.js';
import { buildSchema } from '../../src/graphql/schema.js';
import { ChannelService } from '../../src/modules/channels/service.js';
import { SESSION_KEY_LABEL, SessionService } from '../../src/modules/sessions/service.js';
import { FeeService, sessionCustomerTotal } from '../../src/modules/pricing/service.js';
import { InstructionService } from '../../src/modules/channels/instructions.js';
import { ChangeFeed } from '../../src/modules/live/change-feed.js';
import type { GraphQLContext, Services } from '../../src/graphql/context.js';
import type { Principal } from '../../src/modules/auth/principal.js';

export interface BaselineSetup {
  schema: ReturnType<typeof buildSchema>;
  services: Services;
  principal: Principal;
  context: () => GraphQLContext;
  dataDir: string;
}

export async function baselineSetup(): Promise<BaselineSetup> {
  const dataDir = process.env.DATA_DIR;
  if (!dataDir) throw new Error('DATA_DIR is required');
  const data = await bootData({ dataDir: path.resolve(dataDir), masterKey: null, seedDemoData: false });
  const creds = JSON.parse(fs.readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as {
    merchants: { merchantId: string; apiKey: string; kyc: 'approved' | 'pending' }[];
  };
  const approved = creds.merchants.find((m) => m.kyc === 'approved')!;
  // The same in-memory catalogue the project serves from: every peer reads data held in memory.
  const channels = new ChannelService(data.store.catalog);
  // A change feed like the app's: it costs nothing until a subscription opens (the peers serve none).
  const fees = new FeeService(channels);
  const services: Services = {
    channels,
    fees,
    instructions: new InstructionService(data.store.catalog, sessionCustomerTotal(fees)),
    changes: new ChangeFeed({ store: data.store, catchUpIntervalMs: 200 }),
    sessions: new SessionService(data.secretBox.deriveKey(SESSION_KEY_LABEL), data.store.catalog, channels),
    quotes: new QuoteService(data.store.catalog, data.secretBox, { issuer: () => 'http://localhost', ttlSeconds: QUOTE_TTL.default, recordTtl: (id, ttl) => data.store.admin.raiseQuoteKeyMaxTtl(id, ttl) }),
  };
  const principal: Principal = { apiKeyId: approved.apiKey, mode: 'test', merchantId: approved.merchantId, merchantKyc: 'approved' };
  return { schema: buildSchema(), services, principal, context: () => ({ principal, services, requestId: 'bench', answerDependsOnClock: () => {} }), dataDir };
}

/** Tell the bench which port we listen on (a line on stdout). */
export function announce(port: number): void {
  process.stdout.write(`BENCH_READY ${port}\n`);
}

/** A raw node:http server answering every request with the same bytes (the raw baselines), announced on stdout. */
export function serveFixedBody(body: Buffer): void {
  const headers = { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(body.length) };
  const server = createServer((req, res) => {
    // Drain any request body, then answer the fixed bytes.
    req.resume();
    req.on('end', () => {
      res.writeHead(200, headers);
      res.end(body);
    });
  });
  server.listen(0, '127.0.0.1', () => announce((server.address() as { port: number }).port));
}
