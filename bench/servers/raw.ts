/**
 * The physical limit: raw node:http answering every request with one fixed,
 * pre-serialised REST channel list (read once from the same database).
 */
import { toRestChannel, type GqlChannel } from '../../src/pipeline/rest-routes.js';
import { baselineSetup, serveFixedBody } from './common.js';

const setup = await baselineSetup();
const views = setup.services.channels.listForMerchant(setup.principal);
const body = Buffer.from(
  JSON.stringify({
    status: 200,
    data: views.map((v) =>
      toRestChannel({
        ...v,
        status: v.status.toUpperCase() as GqlChannel['status'],
        group: v.group.toUpperCase() as GqlChannel['group'],
        feeInfo: {
          feePercentage: Number(v.feeInfo.feePercentage),
          feeValue: Number(v.feeInfo.feeValue),
          minTransactions: Number(v.feeInfo.minTransactions),
          maxTransactions: Number(v.feeInfo.maxTransactions),
        },
        feeRule: {
          bands: v.pricing.rule.bands.map((b) => ({ upTo: b.upTo === null ? null : Number(b.upTo), percentage: Number(b.percentage), fixed: Number(b.fixed) })),
          minFee: null,
          maxFee: null,
          taxPercentage: null,
          customerShare: null,
        },
      }),
    ),
  }),
);
serveFixedBody(body);
