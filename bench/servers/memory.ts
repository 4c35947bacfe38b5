/**
 * The in-memory peers' data: the project's own `GET /v1/payments/channel` answer, captured once by
 * the bench from the running project (signed, approved demo merchant) and handed over in a file named by
 * `REST_ANSWER_FILE`. The peers hold it in memory exactly as a user would who put "the channels cached in
 * memory" behind Fastify + Mercurius or a raw node:http server; none of them touches a database per request.
 */
import fs from 'node:fs';

/** One channel of the REST answer (contract §2 field names). */
export interface RestChannel {
  id: string;
  name: string;
  code: string;
  image_url: string;
  status: 'active' | 'offline' | 'maintenance';
  is_fee_charged_to_customer: boolean;
  fee_info: { fee_percentage: number; fee_value: number; min_transactions: number; max_transactions: number };
}

/** The exact bytes of the project's REST channel list and the channels parsed from them. */
export function restAnswer(): { bytes: Buffer; channels: RestChannel[] } {
  const file = process.env.REST_ANSWER_FILE;
  if (!file) throw new Error('REST_ANSWER_FILE is required (the bench captures the project answer first)');
  const bytes = fs.readFileSync(file);
  const parsed = JSON.parse(bytes.toString('utf8')) as { status: number; data: RestChannel[] };
  if (parsed.status !== 200 || !Array.isArray(parsed.data) || parsed.data.length === 0) throw new Error(`${file} is not a REST channel list`);
  return { bytes, channels: parsed.data };
}
