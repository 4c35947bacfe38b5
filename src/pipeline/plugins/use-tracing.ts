/**
 * Contract §13: the GraphQL phases of a traced request as INTERNAL spans under its SERVER span
 * (`graphql.parse`, `graphql.validate`, `graphql.execute`, `graphql.subscribe`), following the span layout of
 * The Guild's Hive gateway, and the SERVER span's attributes that only the pipeline knows (merchant, surface,
 * request id, error code, client address).
 *
 * Why a plugin of the project's own: queries execute with graphql-jit, which bypasses `graphql.execute`, so
 * OpenTelemetry's graphql instrumentation sees nothing; `@envelop/opentelemetry` writes resolver arguments
 * into spans (JSON) and `@graphql-hive/plugin-opentelemetry` brings the whole Hive runtime.
 *
 * What a span records of a document: the operation's type and name only. Never the document text, its
 * literals or variable values (they carry amounts, client secrets, quote tokens).
 *
 * Installed only when tracing is on (src/app/app.ts puts an empty plugin in its place otherwise); a request
 * without a SERVER span (the in-process transport) or with one that does not record (not sampled) gets no
 * span, and nothing is computed for it.
 */
import { SpanKind, SpanStatusCode, trace, ROOT_CONTEXT, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import { getOperationAST, type DocumentNode, type ExecutionArgs } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { requestStateOf, type RequestState } from '../request-state.js';

/** Options of {@link useTracing}. */
export interface TracingPluginOptions {
  tracer: Tracer;
}

/** `graphql.operation.type` and `.name` of a document's operation (no name: absent). */
function operationAttributes(document: unknown, operationName: string | null | undefined): Attributes {
  const operation = document !== null && typeof document === 'object' && 'kind' in document ? getOperationAST(document as DocumentNode, operationName) : null;
  if (operation == null) return {};
  return operation.name === undefined ? { 'graphql.operation.type': operation.operation } : { 'graphql.operation.type': operation.operation, 'graphql.operation.name': operation.name.value };
}

/**
 * The GraphQL phase spans, and the SERVER span described once the response is final (after every hook that
 * replaces it). The request state learns its SERVER span from the request context plugin, the first hook
 * that may answer a request.
 */
export function useTracing(options: TracingPluginOptions): Plugin {
  const { tracer } = options;

  /**
   * A phase span under the request's SERVER span, or undefined for a request whose span does not record (not
   * sampled, or untraced): its attributes are worked out only for a span that records.
   */
  function phase(context: object, name: string, attributes?: () => Attributes): Span | undefined {
    const parent = requestStateOf(context)?.span;
    if (parent === undefined || !parent.isRecording()) return undefined;
    return tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes: attributes?.() }, trace.setSpan(ROOT_CONTEXT, parent));
  }

  function end(span: Span, failed: boolean): void {
    if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  }

  return {
    onParse({ context, params }) {
      const span = phase(context, 'graphql.parse');
      if (span === undefined) return;
      return ({ result }) => {
        if (result instanceof Error || result === null) return end(span, true);
        span.setAttributes(operationAttributes(result, (params as { operationName?: string }).operationName ?? (context as { params?: { operationName?: string } }).params?.operationName));
        end(span, false);
      };
    },
    onValidate({ context, params }) {
      const span = phase(context, 'graphql.validate', () => operationAttributes(params.documentAST, (context as { params?: { operationName?: string } }).params?.operationName));
      if (span === undefined) return;
      // A refused document is the client's mistake: the span records how many errors, not what they quote.
      return ({ valid, result }) => {
        if (!valid) span.setAttribute('graphql.validation.errors', result.length);
        end(span, false);
      };
    },
    onExecute({ args: untyped }) {
      // envelop types the arguments loosely; graphql-js's own ExecutionArgs is what they are.
      const args = untyped as ExecutionArgs;
      const span = phase(args.contextValue as object, 'graphql.execute', () => operationAttributes(args.document, args.operationName));
      if (span === undefined) return;
      return {
        onExecuteDone({ result }) {
          end(span, !isAsyncIterable(result) && result.errors !== undefined && result.errors.length > 0 && result.data == null);
        },
      };
    },
    onSubscribe({ args: untyped }) {
      const args = untyped as ExecutionArgs;
      const span = phase(args.contextValue as object, 'graphql.subscribe', () => operationAttributes(args.document, args.operationName));
      if (span === undefined) return;
      return {
        onSubscribeResult() {
          end(span, false);
        },
        onSubscribeError() {
          end(span, true);
        },
      };
    },
    onResponse({ serverContext }) {
      const state = requestStateOf(serverContext);
      if (state?.span !== undefined && state.span.isRecording()) describe(state.span, state);
    },
  };
}

/** The SERVER span's attributes from what the pipeline learned of the request. */
function describe(span: Span, state: RequestState): void {
  span.setAttribute('gateway.request_id', state.id);
  span.setAttribute('gateway.surface', state.surface);
  if (state.clientAddress !== undefined) span.setAttribute('client.address', state.clientAddress);
  if (state.principal !== undefined) span.setAttribute('gateway.merchant_id', state.principal.merchantId);
  if (state.errorCode !== undefined) span.setAttribute('gateway.error_code', state.errorCode);
}
