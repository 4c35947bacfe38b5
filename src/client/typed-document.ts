/**
 * Typed GraphQL documents for `graphql()` of both clients: a document that carries its result and variables
 * types, as `@graphql-typed-document-node/core` defines them. Typed structurally (the same one optional
 * member, `__apiType`), so the SDK depends neither on that package nor on `graphql`: a `TypedDocumentNode`
 * (a parsed document, which keeps its text in `loc.source.body`) and graphql-codegen's `TypedDocumentString`
 * (its client preset with `documentMode: 'string'`: the text itself, a `String` object) are both accepted,
 * and `graphql()` resolves with their result type.
 */

/** `DocumentTypeDecoration` of `@graphql-typed-document-node/core`: the types a typed document carries. */
export interface DocumentTypeDecoration<TResult, TVariables> {
  __apiType?: (variables: TVariables) => TResult;
}

/** A parsed GraphQL document as far as the client needs it (graphql-js `DocumentNode`: its source text). */
interface ParsedDocument {
  readonly kind: string;
  readonly loc?: { readonly source: { readonly body: string } };
}

/**
 * What `graphql()` takes besides a query string: a `TypedDocumentNode<TResult, TVariables>` or a codegen
 * `TypedDocumentString<TResult, TVariables>`.
 */
// eslint-disable-next-line @typescript-eslint/no-wrapper-object-types -- codegen's TypedDocumentString extends String: the object type is the point
export type TypedDocument<TResult, TVariables> = DocumentTypeDecoration<TResult, TVariables> & (ParsedDocument | String);

/**
 * The text a document is sent as. A parsed document without its source (`loc`: built by hand, or
 * generated without locations) cannot be sent without graphql-js's printer, which the SDK does not carry:
 * refused with how to get one that can.
 */
export function documentText(document: string | TypedDocument<unknown, unknown>): string {
  if (typeof document === 'string') return document;
  if (document instanceof String) return document.toString();
  const body = (document as ParsedDocument).loc?.source.body;
  if (typeof body !== 'string') {
    throw new TypeError(
      "graphql(): this document has no source text (a DocumentNode without loc). Pass the query string, a document parsed with graphql's parse(), or generate documents with graphql-codegen's client preset and documentMode: 'string'",
    );
  }
  return body;
}
