/**
 * The dependency rules of docs/ARCHITECTURE.md ("Dependency rules"), checked by `npm run lint` in CI.
 * Type-only imports count (tsPreCompilationDeps): a type is a dependency of the design even when the
 * compiler erases it.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycle between files: each file can be read after the files it imports.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-folder-cycle',
      comment: 'No import cycle between folders either: the folder tree is the architecture.',
      severity: 'error',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-is-pure',
      comment: 'Pure domain code (src/modules/*/domain) imports only domain code and src/shared: no I/O, no storage, no service.',
      severity: 'error',
      from: { path: '^src/modules/[^/]+/domain/' },
      to: { path: '^src/', pathNot: ['^src/modules/[^/]+/domain/', '^src/shared/'] },
    },
    {
      name: 'domain-uses-pure-packages',
      comment: 'Of the packages, pure domain code uses only exact decimals (big.js) and validation (zod); of the Node built-ins only node:url, whose WHATWG functions (domainToUnicode) are as pure as the global URL it already uses.',
      severity: 'error',
      from: { path: '^src/modules/[^/]+/domain/' },
      to: { dependencyTypes: ['npm', 'npm-dev', 'core'], pathNot: ['node_modules/(big\\.js|zod)/', '^url$'] },
    },
    {
      name: 'engines-only-behind-the-door',
      comment: 'Only the storage door (src/storage/*.ts) opens an engine; everything else, tests and the bench included, sees src/storage/index.ts and src/storage/model.',
      severity: 'error',
      from: { pathNot: ['^src/storage/[^/]+\\.ts$', '^src/storage/(sqlite|postgres)/'] },
      to: { path: '^src/storage/(sqlite|postgres)/' },
    },
    {
      name: 'engines-do-not-import-each-other',
      comment: 'The twins are read side by side, never through each other.',
      severity: 'error',
      from: { path: '^src/storage/sqlite/' },
      to: { path: '^src/storage/postgres/' },
    },
    {
      name: 'engines-do-not-import-each-other-pg',
      comment: 'The twins are read side by side, never through each other.',
      severity: 'error',
      from: { path: '^src/storage/postgres/' },
      to: { path: '^src/storage/sqlite/' },
    },
    {
      name: 'database-drivers-only-in-engines',
      comment:
        'In src/, only the engines speak to a database library. model/schema-checks.ts declares the one table constraint both schemas share, and model/admin-sql.ts the operator queries\' conditions both engines share, with drizzle\'s dialect-neutral `sql`. Tests, scripts and the bench may open raw connections, as an operator would.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/storage/(sqlite|postgres)/', '^src/storage/model/(schema-checks|admin-sql)\\.ts$'] },
      to: { path: 'node_modules/(better-sqlite3|pg|drizzle-orm|drizzle-kit)/' },
    },
    {
      name: 'storage-imports-only-shared',
      comment: 'Storage knows nothing of the domain, the pipeline or the app: the catalogue reaches it as a CatalogueSink.',
      severity: 'error',
      from: { path: '^src/storage/' },
      to: { path: '^src/', pathNot: ['^src/storage/', '^src/shared/'] },
    },
    {
      name: 'shared-is-a-leaf',
      comment: 'src/shared is what everyone may import, so it imports nothing else of src/.',
      severity: 'error',
      from: { path: '^src/shared/' },
      to: { path: '^src/', pathNot: ['^src/shared/'] },
    },
    {
      name: 'modules-below-the-api',
      comment: 'Domain modules know nothing of HTTP, GraphQL, the composition root or the CLI.',
      severity: 'error',
      from: { path: '^src/modules/' },
      to: { path: '^src/(pipeline|graphql|app|cli)/' },
    },
    {
      name: 'graphql-below-the-pipeline',
      comment: 'Resolvers call services; they never reach into the HTTP pipeline.',
      severity: 'error',
      from: { path: '^src/graphql/' },
      to: { path: '^src/(pipeline|app|cli)/' },
    },
    {
      name: 'pipeline-below-the-app',
      comment: 'The pipeline is assembled by src/app; it never imports its assembler or the CLI.',
      severity: 'error',
      from: { path: '^src/pipeline/' },
      to: { path: '^src/(app|cli)/' },
    },
    {
      name: 'engines-below-the-plugins',
      comment: 'The live fan-out engine (pipeline/live) and the budgets (pipeline/budgets) are driven by the plugins; they never import a plugin, so pipeline/plugins holds the useXxx factories and nothing depends on them but the app.',
      severity: 'error',
      from: { path: '^src/pipeline/(live|budgets|transport)/' },
      to: { path: '^src/pipeline/plugins/' },
    },
    {
      name: 'cli-is-an-entry-point',
      comment: 'Nothing in src/ imports the command-line entry points.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/cli/'] },
      to: { path: '^src/cli/' },
    },
    {
      name: 'client-is-browser-safe',
      comment: 'The SDK runs in browsers: it imports only src/shared and the WebCrypto-free SVC1 core.',
      severity: 'error',
      from: { path: '^src/client/' },
      to: { path: '^src/', pathNot: ['^src/client/', '^src/shared/', '^src/modules/auth/svc1-core\\.ts$'] },
    },
    {
      name: 'client-uses-no-node-built-in',
      comment: 'The SDK is published for browsers and bundlers too (packages/client): no Node built-in; of the packages only graphql-sse and jose (browser-safe: WebCrypto).',
      severity: 'error',
      from: { path: '^src/client/' },
      to: { dependencyTypes: ['core', 'npm', 'npm-dev', 'npm-optional', 'npm-peer'], pathNot: ['node_modules/graphql-sse/', 'node_modules/jose/'] },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'Every import resolves (a typo or a moved file fails the lint, not only the build).',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
