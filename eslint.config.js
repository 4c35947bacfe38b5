// ESLint (flat config): typescript-eslint's type-aware recommended rules over everything TypeScript in the
// repository. `npm run lint` runs it together with the dependency rules (.dependency-cruiser.cjs).
import js from '@eslint/js';
import graphqlPlugin from '@graphql-eslint/eslint-plugin';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** The no-unsafe-* family, off where code reads free-form JSON on purpose (each use below says why). */
const UNTYPED_JSON_ALLOWED = {
  '@typescript-eslint/no-unsafe-assignment': 'off',
  '@typescript-eslint/no-unsafe-member-access': 'off',
  '@typescript-eslint/no-unsafe-argument': 'off',
  '@typescript-eslint/no-unsafe-call': 'off',
  '@typescript-eslint/no-unsafe-return': 'off',
  '@typescript-eslint/no-explicit-any': 'off',
};

/**
 * The GraphQL schema (schema/*.graphql, the contract with frontends): graphql-eslint's schema-recommended
 * rules over the whole schema at once (graphQLConfig below), which include naming conventions and no
 * unreachable types, with descriptions required on everything a frontend developer reads.
 * schema/published/ (the baseline printed by `npm run schema:publish`) is generated and not linted.
 */
const SCHEMA_FILES = ['schema/*.graphql'];
const graphqlSchemaLint = {
  files: SCHEMA_FILES,
  languageOptions: { parser: graphqlPlugin.parser, parserOptions: { graphQLConfig: { schema: SCHEMA_FILES } } },
  plugins: { '@graphql-eslint': graphqlPlugin },
  rules: {
    ...graphqlPlugin.configs['flat/schema-recommended'].rules,
    // Every type, field, argument, input field, enum value, scalar and directive: the SDL is what GraphiQL's
    // Docs pane and every client team read (issue 30).
    '@graphql-eslint/require-description': [
      'error',
      { types: true, rootField: true, FieldDefinition: true, InputValueDefinition: true, EnumValueDefinition: true, DirectiveDefinition: true },
    ],
    // One-line descriptions are written inline ("…"), longer ones as blocks ("""…"""); the rule can only demand one style.
    '@graphql-eslint/description-style': 'off',
    // Results such as FeeCalculation, FeeInfo and FeeBand are values, not entities: an `id` there would be invented.
    '@graphql-eslint/strict-id-in-types': 'off',
  },
};

const codeConfigs = tseslint.config(
  { ignores: ['dist/**', 'packages/*/dist/**', 'node_modules/**', 'drizzle/**', 'artifacts/**', 'src/graphql/generated.ts', '**/*.cjs', 'schema/published/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: { projectService: { allowDefaultProject: ['*.js', '*.mjs', 'scripts/*.mjs', 'bin/*.mjs', 'packages/*/*.mjs', 'docs/examples/*/*.js'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // `_`-prefixed names are deliberately unused (destructuring to drop a field, parameters a signature requires).
      // Yoga's hook payloads declare their callbacks (endResponse, setResult, setRequest, …) as methods, and they
      // are meant to be destructured, as Yoga's own plugins do; the rule cannot tell such a payload from a class.
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  {
    // Tests, the bench and scripts read untyped JSON answers (`await res.json()`) and assert on them: the
    // assertion is their type check. Production code (src/) keeps every no-unsafe-* rule.
    files: ['test/**', 'bench/**', 'scripts/**'],
    rules: UNTYPED_JSON_ALLOWED,
  },
  {
    // The API reference page walks the project's own OpenAPI document, which is free-form JSON Schema; the
    // document itself is validated against OpenAPI 3.1 by test/integration/openapi.test.ts.
    files: ['src/modules/docs/openapi-page.ts'],
    rules: UNTYPED_JSON_ALLOWED,
  },
  {
    // The SQLite repository implements the asynchronous AdminRepository with synchronous better-sqlite3 calls:
    // `async` is what turns each throw into a rejection, as on Postgres.
    files: ['src/storage/sqlite/admin.ts'],
    rules: { '@typescript-eslint/require-await': 'off' },
  },
);

/** Only the schema lint applies to .graphql files: the code configs without `files` would otherwise match them too. */
/** @param {import('eslint').Linter.Config} config */
const isGlobalIgnores = (config) => Object.keys(config).length === 1 && 'ignores' in config;
export default [
  ...codeConfigs.map((config) => (config.files || isGlobalIgnores(config) ? config : { ...config, ignores: [...(config.ignores ?? []), '**/*.graphql'] })),
  graphqlSchemaLint,
];
