// ESLint (flat config): typescript-eslint's type-aware recommended rules over everything TypeScript in the
// repository. `npm run lint` runs it together with the dependency rules (.dependency-cruiser.cjs).
import js from '@eslint/js';
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

export default tseslint.config(
  { ignores: ['dist/**', 'packages/*/dist/**', 'node_modules/**', 'drizzle/**', 'artifacts/**', 'src/graphql/generated.ts', '**/*.cjs'] },
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
