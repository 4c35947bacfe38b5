/**
 * `graphql()` of both SDK clients takes a typed document (`TypedDocumentNode` as
 * @graphql-typed-document-node/core defines it, or graphql-codegen's `TypedDocumentString`) and resolves with
 * its result type; what it sends is the document's text. Types checked by tsc (`npm run typecheck` compiles
 * this file); the wire checked against a fake fetch.
 */
import { parse, type DocumentNode } from 'graphql';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { createClient, createSessionClient, type DocumentTypeDecoration } from '../../src/client/index.js';

/** `TypedDocumentNode` exactly as @graphql-typed-document-node/core declares it (a types-only package). */
interface TypedDocumentNode<TResult = Record<string, any>, TVariables = Record<string, any>> extends DocumentNode, DocumentTypeDecoration<TResult, TVariables> {}

/** graphql-codegen's client preset output with `documentMode: 'string'` (the class it generates, as written). */
class TypedDocumentString<TResult, TVariables> extends String implements DocumentTypeDecoration<TResult, TVariables> {
  __apiType?: DocumentTypeDecoration<TResult, TVariables>['__apiType'];
  constructor(private value: string) {
    super(value);
  }
  override toString(): string {
    return this.value;
  }
}

interface ChannelsResult {
  paymentChannels: { code: string; fee: { totalAmount: number } | null }[];
}
interface ChannelsVariables {
  amount: string;
}
const QUERY = 'query Channels($amount: Decimal!) { paymentChannels { code fee(amount: $amount) { totalAmount } } }';

/** A fetch that records the GraphQL bodies sent and answers one channel. */
function recordingFetch() {
  const sent: { query: string; variables?: unknown }[] = [];
  const fetch = ((_url: unknown, init?: RequestInit) => {
    sent.push(JSON.parse(init?.body as string) as { query: string });
    return Promise.resolve(new Response(JSON.stringify({ data: { paymentChannels: [{ code: 'qris', fee: { totalAmount: 151050 } }] } }), { status: 200, headers: { 'content-type': 'application/json' } }));
  }) as typeof globalThis.fetch;
  return { sent, fetch };
}

describe('client.graphql() with typed documents', () => {
  it('a TypedDocumentNode (parsed, with its source) is sent as its text; the result has the document\'s type', async () => {
    const { sent, fetch } = recordingFetch();
    const client = createClient({ baseUrl: 'http://gateway.test', apiKey: 'pk_test_x', apiSecret: 'sk_test_y', fetch });
    const document = parse(QUERY) as TypedDocumentNode<ChannelsResult, ChannelsVariables>;
    const data = await client.graphql(document, { amount: '150000' });
    expectTypeOf(data).toEqualTypeOf<ChannelsResult>();
    expect(data.paymentChannels[0]!.fee?.totalAmount).toBe(151050);
    expect(sent).toEqual([{ query: QUERY, variables: { amount: '150000' } }]);
    // @ts-expect-error -- the variables are the document's: a number is not a Decimal string here
    await client.graphql(document, { amount: 150000 });
  });

  it('a codegen TypedDocumentString too, on the session client as well', async () => {
    const { sent, fetch } = recordingFetch();
    const document = new TypedDocumentString<ChannelsResult, ChannelsVariables>(QUERY);
    const session = createSessionClient({ baseUrl: 'http://gateway.test', clientSecret: 'cs_1_secret_x', fetch });
    const data = await session.graphql(document, { amount: '1000' });
    expectTypeOf(data).toEqualTypeOf<ChannelsResult>();
    expect(sent).toEqual([{ query: QUERY, variables: { amount: '1000' } }]);
    session.dispose();
  });

  it('a plain string still gives Record<string, unknown> unless typed; a DocumentNode without its source is refused', async () => {
    const { fetch } = recordingFetch();
    const client = createClient({ baseUrl: 'http://gateway.test', apiKey: 'pk_test_x', apiSecret: 'sk_test_y', fetch });
    expectTypeOf(await client.graphql('{ paymentChannels { code } }')).toEqualTypeOf<Record<string, unknown>>();
    expectTypeOf(await client.graphql<ChannelsResult>('{ paymentChannels { code } }')).toEqualTypeOf<ChannelsResult>();
    const { loc: _loc, ...withoutSource } = parse(QUERY);
    await expect(client.graphql(withoutSource as TypedDocumentNode<ChannelsResult, ChannelsVariables>)).rejects.toThrow(/no source text .*documentMode: 'string'/);
  });
});
