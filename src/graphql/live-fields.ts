/**
 * What a live event's answer depends on, field by field (contract §8b): the fact the event templates of the
 * live-streams plugin (src/pipeline/live/event-templates.ts) rest on.
 *
 * A checkout page's stream asks `paymentChannelsChanged` with its own amount (its session's amount, the
 * `fee(amount:)` variable). Of a channel's fields only three read that amount:
 * - `availability`: judged against the session's amount (limits, precision);
 * - `fee(amount:)`: priced for its argument, checked against the session's amount;
 * - `instructions`: `{{amount}}` is what the session's customer pays on the channel (contract §14).
 * Every other field of `PaymentChannel` is the same for every stream of one merchant's key and session scope
 * (currency, methods, locale) at one data version, given the same arguments: the channel record, its pricing
 * rule, its names. So many pages that differ only in their amount share one execution, and each page
 * computes only these three fields for itself (and only those its document selects: the component's
 * subscription does not select `instructions`; it asks for them once a channel is chosen).
 *
 * Invariant (test/unit/live-fields.test.ts): every field of `PaymentChannel` is in exactly one of the two
 * sets, so a field added to the schema is not templated until someone says which kind it is.
 */
import { recordOf, type ListedChannel } from '../modules/channels/service.js';

/** The subscription field whose events are templated, and the type of its list's items. */
export const LIVE_LIST = { field: 'paymentChannelsChanged', itemType: 'PaymentChannel' } as const;

/** Fields of a channel whose value depends on the stream's payment (its amount): computed per stream. */
export const PAYMENT_FIELDS: ReadonlySet<string> = new Set(['availability', 'fee', 'instructions']);

/** Fields of a channel whose value is the same for every stream of one key and session scope (see above). */
export const SCOPE_FIELDS: ReadonlySet<string> = new Set([
  '__typename',
  'id',
  'name',
  'group',
  'groupName',
  'code',
  'imageUrl',
  'status',
  'isFeeChargedToCustomer',
  'feeInfo',
  'feeRule',
  'scheduledFeeRules',
  'currency',
  'requiresKyc',
  'instructionsVersion',
]);

/**
 * Invariant the event templates rest on when a page reuses its own earlier values (event-templates.ts
 * `outcomesOf`): each payment field's value is a function of the channel record its item was listed from
 * ({@link itemRecordOf}), the stream's principal and the field's arguments, and of nothing else: no clock, no
 * other state. A change that leaves a channel's record and a stream's principal as they were leaves that
 * channel's payment fields as they were. (The catalogue builds a new record whenever anything of a channel
 * changes for a merchant, a scheduled rule taking effect included: src/modules/catalogue/catalog.ts.)
 */
export function itemRecordOf(item: object): object {
  return recordOf(item as ListedChannel);
}
