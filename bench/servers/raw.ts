/**
 * The physical limit: raw node:http answering every request with one fixed,
 * pre-serialised REST channel list (read once from the same database).
 */
import { createServer } from 'node:http';
import { toRestChannel, type GqlChannel } from '../../src/rest/operations.js';
import { announce, baselineSetup } from './common.js';

const setup = await baselineSetup();
const views = setup.services.channels.listForMerchant(setup.principal);
const body = Buffer.from(
  JSON.stringify({
    status: 200,
    data: views.map((v) =>
      toRestChannel({
        ...v,
        status: v.status.toUpperCase() as GqlChannel['status'],
        feeInfo: {
          feePercentage: Number(v.feeInfo.feePercentage),
          feeValue: Number(v.feeInfo.feeValue),
          minTransactions: Number(v.feeInfo.minTransactions),
          maxTransactions: Number(v.feeInfo.maxTransactions),
        },
      }),
    ),
  }),
);
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
