import { defineConfig } from 'drizzle-kit';

/** Postgres (DATABASE_URL): migrations generated from src/db/schema.pg.ts into drizzle/pg/ and committed. */
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema.pg.ts',
  out: './drizzle/pg',
});
