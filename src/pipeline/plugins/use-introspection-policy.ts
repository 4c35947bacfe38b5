/**
 * Who may introspect the schema (`__schema`, `__type`): SVC1-signed callers only (SECURITY.md).
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

/** True when the document selects `__schema` or `__type` in any operation or fragment. */
export function selectsIntrospection(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    [Kind.FIELD](node) {
      if (!INTROSPECTION_FIELDS.has(node.name.value)) return undefined;
      found = true;
      return BREAK;
    },
  });
  return found;
}

/** Refuses introspection to checkout sessions. Place after authentication (the principal is known at execution). */
export function useIntrospectionPolicy(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      // Signed callers (the common case) pay one property read; only a session's document is walked.
      if (!requestStateOf(args.contextValue)?.principal?.session) return;
      // envelop types the document as `any`; it is the parsed (and validated) operation.
      if (!selectsIntrospection(args.document as DocumentNode)) return;
      const refusal = new AppError('SESSION_SCOPE', 'Schema introspection needs a signed (SVC1) request; a checkout session cannot introspect.');
      setResultAndStopExecution({
        errors: [answerError(refusal.message, { originalError: refusal, extensions: { code: refusal.code, http: { status: refusal.status } } })],
      });
    },
  };
}
