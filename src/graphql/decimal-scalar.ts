/**
 * The `Decimal` scalar: exact decimals in, JSON numbers out. Internal value
 * is canonical decimal text (see src/shared/money.ts). Literals are parsed
 * from their source text, so `150000.07` is exact even before a double
 * could round it. Variables arrive from the request's JSON parse
 * (src/shared/json-numbers.ts): a number whose double has exactly its value,
 * or, when a double would change it, its source text (`JSON.rawJSON`), parsed
 * here as text like a literal. Either way the value is the one the client wrote.
 */
import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { AppError } from '../shared/errors.js';
import { isRawJsonNumber } from '../shared/json-numbers.js';
import { Big, parseDecimalNumber, parseDecimalText, toDecimalString } from '../shared/money.js';

function asDecimal(parse: () => Big): string {
  try {
    return toDecimalString(parse());
  } catch (err) {
    // Rethrown as a plain GraphQL error so graphql-js prefixes it with the offending path ("at input.amount").
    if (err instanceof AppError) throw new GraphQLError(err.message.replace(/^value /, 'Decimal '));
    throw err;
  }
}

export const DecimalScalar = new GraphQLScalarType<string, number>({
  name: 'Decimal',
  description: 'An exact decimal number, serialised as a JSON number.',
  serialize(value) {
    const text = value instanceof Big ? value.toFixed() : typeof value === 'string' || typeof value === 'number' ? String(value) : null;
    const number = text === null ? NaN : Number(text);
    if (!Number.isFinite(number)) throw new GraphQLError(`Decimal cannot represent ${String(value)}`);
    return number;
  },
  parseValue(value) {
    return asDecimal(() => (isRawJsonNumber(value) ? parseDecimalText(value.rawJSON, 'value') : parseDecimalNumber(value, 'value')));
  },
  parseLiteral(ast) {
    if (ast.kind !== Kind.INT && ast.kind !== Kind.FLOAT) throw new GraphQLError('Decimal must be a number literal.', { nodes: ast });
    return asDecimal(() => parseDecimalText(ast.value, 'value'));
  },
});
