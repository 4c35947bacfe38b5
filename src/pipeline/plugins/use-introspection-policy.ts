/**
 * What a checkout session may not select, refused before it executes: schema introspection (`__schema`,
 * `__type`) and quote verification (`verifyQuote`). SVC1-signed callers only (SECURITY.md).
 *
 * Quote verification is the merchant server's step before it creates a payment (contract §11), never a
 * shopper's page's: REST `POST /v1/payments/quotes/verify` refuses sessions (a route they may not call), and
 * GraphQL `verifyQuote` answers the same 403 SESSION_SCOPE (it served them, an unpriced CPU lever).
 *
 * A checkout session's client secret is a public credential: it sits in every shopper's browser and in the
 * page source, so anyone can read one. The schema it would reveal is the whole API, merchant-only operations
 * included, which a checkout never needs (its documents are fixed at build time; the SDK and the component
 * send no introspection). So a session's operation that selects `__schema` or `__type` anywhere (fragments
 * included) is refused with SESSION_SCOPE (403) before it executes. `__typename` stays allowed: clients
 * add it to every selection for their caches.
 *
 * Checked at execution, not as a validation rule: Yoga caches validation per document, shared by every
 * caller, so a document validated for a signed caller would be served to a session from that cache.
 */
import { Kind, visit, BREAK, type DocumentNode } from 'graphql';
import { answerError } from '../error-normalizer.js';
import type { Plugin } from 'graphql-yoga';
import { AppError } from '../../shared/errors.js';
import { requestStateOf } from '../request-state.js';

const INTROSPECTION_FIELDS = new Set(['__schema', '__type']);
/** Root fields a session may not select (by name: only `Query` has them). */
const SIGNED_ONLY_FIELDS = new Set(['verifyQuote']);

/** The first field of `names` the document selects in any operation or fragment, if any. */
function firstSelected(document: DocumentNode, names: ReadonlySet<string>): string | undefined {
  let found: string | undefined;
  visit(document, {
    [Kind.FIELD](node) {
      if (!names.has(node.name.value)) return undefined;
      found = node.name.value;
      return BREAK;
    },
  });
  return found;
}

/** True when the document selects `__schema` or `__type` in any operation or fragment. */
export function selectsIntrospection(document: DocumentNode): boolean {
  return firstSelected(document, INTROSPECTION_FIELDS) !== undefined;
}

const REFUSED_FIELDS: ReadonlySet<string> = new Set([...INTROSPECTION_FIELDS, ...SIGNED_ONLY_FIELDS]);

/** Refuses introspection and quote verification to checkout sessions. Place after authentication (the principal is known at execution). */
export function useIntrospectionPolicy(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      // Signed callers (the common case) pay one property read; only a session's document is walked.
      if (!requestStateOf(args.contextValue)?.principal?.session) return;
      // envelop types the document as `any`; it is the parsed (and validated) operation.
      const field = firstSelected(args.document as DocumentNode, REFUSED_FIELDS);
      if (field === undefined) return;
      const refusal = SIGNED_ONLY_FIELDS.has(field)
        ? new AppError('SESSION_SCOPE', 'A checkout session cannot verify quotes: your server verifies them, with a signed call or offline with the keys at /.well-known/jwks.json.')
        : new AppError('SESSION_SCOPE', 'Schema introspection needs a signed (SVC1) request; a checkout session cannot introspect.');
      setResultAndStopExecution({
        errors: [answerError(refusal.message, { originalError: refusal, extensions: { code: refusal.code, http: { status: refusal.status } } })],
      });
    },
  };
}
