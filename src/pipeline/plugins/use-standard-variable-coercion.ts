/**
 * Variable errors are worded by graphql-js, whatever executes the operation.
 *
 * graphql-jit (the fast executor) coerces variables with its own compiled
 * code and its own messages, which lose the offending path and the scalar's
 * reason. When an operation with variables comes back with errors and no
 * data (what a refused variable gives, before any resolver runs), graphql-js's
 * `getVariableValues` is run on the same variables: if it refuses them too,
 * its errors replace the executor's, so there is one set of INVALID_REQUEST
 * messages (`amount: …`, `currency is required.`). If graphql-js accepts them,
 * the failure was something else (a resolver error on a non-null root field)
 * and the result is kept as it is.
 *
 * Why after execution and not before: coercing every request's variables
 * twice cost ~4 % of the CPU of an executed `calculateFee` (bench:profile
 * gql-calc-uncached); a valid request now pays only the executor's own
 * compiled coercion, and only a failed one pays the second pass. graphql-jit
 * refuses the same inputs graphql-js does (wrong types, unknown or missing
 * input fields, a scalar's parseValue throwing), so nothing graphql-js would
 * refuse is executed; test/integration/errors.test.ts pins the messages.
 */
import { getOperationAST, getVariableValues, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';

export function useStandardVariableCoercion(): Plugin {
  return {
    onExecute({ args: untyped }) {
      // envelop types the arguments loosely; graphql-js's own ExecutionArgs is what they are.
      const args = untyped as ExecutionArgs;
      return {
        onExecuteDone({ result, setResult }) {
          // A success pays nothing here: the operation is looked up only for a result without data.
          if (isAsyncIterable(result) || !result.errors?.length || result.data != null) return;
          const definitions = getOperationAST(args.document, args.operationName)?.variableDefinitions;
          if (!definitions?.length) return;
          const coerced = getVariableValues(args.schema, definitions, args.variableValues ?? {}, { maxErrors: 10 });
          if (coerced.errors) setResult({ errors: coerced.errors } as ExecutionResult);
        },
      };
    },
  };
}
