import { defineConfig } from "prisma/config";

// `prisma generate` only needs the schema. Migrations are applied by scripts/db/migrate.ts
// through the WebAssembly schema engine, so no native engine binary is required.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
});
