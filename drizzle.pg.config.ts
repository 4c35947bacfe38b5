import { defineConfig } from 'drizzle-kit';

/** Postgres (DATABASE_URL): migrations generated from src/storage/postgres/schema.ts into drizzle/pg/ and committed. */
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/storage/postgres/schema.ts',
  out: './drizzle/pg',
});
