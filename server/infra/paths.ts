import path from "node:path";

/**
 * The project's root folder. Every entry point (npm scripts, the Next.js server started by
 * `npm start`, the test runner) runs with the project root as its working directory.
 */
export const projectRoot = process.cwd();

export const schemaPath = path.join(projectRoot, "prisma/schema.prisma");
export const migrationsDir = path.join(projectRoot, "prisma/migrations");
