import { defineConfig } from 'drizzle-kit';

/** Migrations are generated from src/db/schema.ts into drizzle/ (`npm run db:generate`) and committed. */
export default defineConfig({
  dialect: 'sqlite',
  schema: './src/db/schema.ts',
  out: './drizzle',
});
