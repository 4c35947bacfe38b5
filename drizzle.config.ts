import { defineConfig } from 'drizzle-kit';

/**
 * SQLite (the embedded default): migrations are generated from src/storage/sqlite/schema.ts into drizzle/sqlite/
 * (`npm run db:generate`) and committed. The Postgres twin is drizzle.pg.config.ts.
 */
export default defineConfig({
  dialect: 'sqlite',
  schema: './src/storage/sqlite/schema.ts',
  out: './drizzle/sqlite',
});
