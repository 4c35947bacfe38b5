/**
 * Variables are coerced by graphql-js before any executor runs.
 *
 * graphql-jit (the fast executor) coerces variables with its own code and
 * its own messages, which lose the offending path and the scalar's reason.
 * Running graphql-js's `getVariableValues` first keeps one set of
 * INVALID_REQUEST messages (`amount: …`, `currency is required.`) whatever
 * executes the operation; a request with valid variables pays one extra
 * coercion pass, only when the operation declares variables.
 */
import { getOperationAST, getVariableValues, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';

export function useStandardVariableCoercion(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const operation = getOperationAST(args.document, args.operationName);
      if (!operation?.variableDefinitions?.length) return;
      const coerced = getVariableValues(args.schema, operation.variableDefinitions, (args.variableValues ?? {}) as Record<string, unknown>, { maxErrors: 10 });
      if (coerced.errors) setResultAndStopExecution({ errors: coerced.errors } as ExecutionResult);
    },
  };
}
