// Lint gates run by `npm test` with zero warnings: typescript-eslint's type-checked
// rules, React's hooks rules, and an import-cycle check (a cycle makes the layering in
// server/ARCHITECTURE.md a lie; `npm run lint:cycles` also catches type-only cycles).
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import { importX } from "eslint-plugin-import-x";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";

// tests, benches and their scaffolding (every testing/ folder)
const TEST_FILES = ["**/*.test.ts", "**/*.test.tsx", "e2e/**", "bench/**", "**/testing/**"];
const NO_TESTING = {
  group: ["**/testing/*"],
  message: "test scaffolding is for tests only",
};

export default tseslint.config(
  {
    ignores: [
      "node_modules/",
      ".next/",
      "build/",
      "server/generated/",
      "test-results/",
      "playwright-report/",
      "data/",
      "next-env.d.ts",
      "**/*.mjs",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { "react-hooks": reactHooks, "import-x": importX },
    settings: { "import-x/resolver-next": [createTypeScriptImportResolver({ project: "./tsconfig.json" })] },
    rules: {
      ...reactHooks.configs.recommended.rules,
      "import-x/no-cycle": ["error", { ignoreExternal: true }],
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
      // React event handlers may be async; what they return is ignored by design
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { attributes: false } }],
      // ports are Promise-returning interfaces: an implementation with nothing to await is still async
      "@typescript-eslint/require-await": "off",
      // a switch over a union names every member, so adding one fails lint where it must be handled
      "@typescript-eslint/switch-exhaustiveness-check": ["error", { considerDefaultExhaustiveForUnions: true }],
    },
  },
  {
    // test scaffolding is for tests: no product file reaches it
    files: ["server/**/*.ts", "app/**/*.ts", "app/**/*.tsx", "components/**/*.ts", "components/**/*.tsx"],
    ignores: TEST_FILES,
    rules: { "no-restricted-imports": ["error", { patterns: [NO_TESTING] }] },
  },
  {
    // the browser imports types only from server/protocol (server components under app/ may read services)
    files: ["components/**/*.ts", "components/**/*.tsx"],
    ignores: TEST_FILES,
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            NO_TESTING,
            {
              group: ["@/server/services/*", "@/server/core/*", "@/server/executor/*", "@/server/adapters/*", "@/server/agents/*"],
              message: "the browser imports from server/protocol only: re-export what it needs there",
            },
          ],
        },
      ],
    },
  },
  {
    // pages, route handlers and auth ask the application (getRuntime().app), whose services
    // check the actor where they read; the raw client would skip that check. The module
    // rules (.dependency-cruiser.mjs) cannot see a property read, so this one does.
    // session.ts hands better-auth the client.
    files: ["app/**/*.ts", "app/**/*.tsx", "server/auth/**/*.ts", "proxy.ts"],
    ignores: [...TEST_FILES, "server/auth/session.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "MemberExpression[object.type='CallExpression'][object.callee.name='getRuntime'][property.name='prisma']",
          message: "read data through getRuntime().app (services/application.ts): its services check the actor",
        },
        {
          selector: "VariableDeclarator[init.callee.name='getRuntime'] > ObjectPattern > Property[key.name='prisma']",
          message: "read data through getRuntime().app (services/application.ts): its services check the actor",
        },
      ],
    },
  },
  {
    // tests, fixtures and benches read untyped JSON answers (response.json(), wire bodies) on purpose
    files: TEST_FILES,
    rules: {
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      // test servers and child processes take async listeners on purpose
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: false }],
    },
  },
);
