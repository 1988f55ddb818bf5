import { defineConfig } from "vitest/config";

// Two projects so `npm test` can report fast pure tests apart from the ones that
// open a database (*.int.test.ts: PGlite, and PostgreSQL at 127.0.0.1:5432).
export default defineConfig({
  resolve: { alias: { "@": new URL("./", import.meta.url).pathname } },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["server/**/*.test.ts", "components/**/*.test.ts", "app/**/*.test.ts", "bench/**/*.test.ts", "i18n/**/*.test.ts"],
          exclude: ["**/*.int.test.ts", "node_modules/**"],
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["server/**/*.int.test.ts", "app/**/*.int.test.ts", "bench/**/*.int.test.ts"],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // two cores: keep database-heavy files from starving each other
          fileParallelism: false,
        },
      },
    ],
  },
});
