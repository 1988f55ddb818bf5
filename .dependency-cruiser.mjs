// The layer rules of `npm run lint:layers` (server/ARCHITECTURE.md, "Layers"). Layers
// are listed lowest first; a file may import its own layer and the ones listed before
// it, never one listed after it. A lower layer that needs something from a higher one
// gets it injected where the server is wired (server/boot.ts, server/index.ts).
// Folders the style guide names as peers ("db/adapters", "agents, workspace") are
// ordered too, so that no two folders import each other.
/** @type {{ name: string, path: string, tests?: string }[]} */
const LAYERS = [
  { name: "core", path: "^server/core/" },
  { name: "protocol", path: "^server/protocol/" },
  { name: "config", path: "^server/config/" },
  { name: "generated", path: "^server/generated/" },
  { name: "observability", path: "^server/observability/" },
  { name: "ports", path: "^server/ports/" },
  { name: "db", path: "^server/db/" },
  { name: "adapters", path: "^server/adapters/" },
  { name: "access", path: "^server/access/" },
  { name: "executor", path: "^server/executor/" },
  { name: "agents", path: "^server/agents/" },
  { name: "workspace", path: "^server/workspace/" },
  { name: "services", path: "^server/services/" },
  { name: "runtime", path: "^server/runtime[.]ts$" },
  { name: "http", path: "^server/http/" },
  { name: "auth", path: "^server/auth/" },
  { name: "api-v1", path: "^server/api-v1/" },
  { name: "socket", path: "^server/socket/" },
  { name: "ops", path: "^server/ops/" },
  { name: "server", path: "^server/(?!runtime[.]ts$)[^/]+[.]ts$", tests: "^server/([^/]+[.]test[.]ts$|testing/)" },
  { name: "app", path: "^(app/|proxy[.]ts$)" },
];

// tests and their scaffolding: they may import their own layer, lower ones and any
// testing/ folder (a test of the executor starts a whole server through server/testing/)
const TESTS = "([.]test[.]tsx?$|/testing/)";

// the top layer has nothing above it, so no rule
const BELOW_TOP = LAYERS.slice(0, -1);

const upward = BELOW_TOP.map((layer, index) => ({
  name: `layer-${layer.name}`,
  comment: `${layer.name} imports only ${
    index === 0
      ? "itself"
      : `itself and ${LAYERS.slice(0, index)
          .map((lower) => lower.name)
          .join(", ")}`
  }`,
  severity: "error",
  from: { path: layer.path, pathNot: TESTS },
  to: { path: LAYERS.slice(index + 1).map((higher) => higher.path) },
}));

// the database, its generated client and the adapters over it: what only services (and
// the layers under them) touch
const DATA = ["^server/db/", "^server/generated/", "^server/adapters/", "(^|/)node_modules/@prisma/", "^@prisma/"];

const upwardFromTests = BELOW_TOP.map((layer, index) => ({
  name: `layer-${layer.name}-tests`,
  comment: `tests of ${layer.name} import their layer, lower layers and testing/ folders`,
  severity: "error",
  from: { path: layer.tests ?? `${layer.path}.*${TESTS}` },
  to: { path: LAYERS.slice(index + 1).map((higher) => higher.path), pathNot: "/testing/" },
}));

export default {
  forbidden: [
    ...upward,
    ...upwardFromTests,
    {
      name: "no-circular",
      comment: "a cycle makes the layering a lie",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "app-through-the-facade",
      comment:
        "pages, layouts and route handlers reach data through getRuntime().app (services/application.ts), whose services check the actor where they read",
      severity: "error",
      from: { path: "^(app/|proxy[.]ts$)", pathNot: TESTS },
      to: { path: DATA },
    },
    {
      name: "auth-asks-the-application",
      comment:
        "auth hands better-auth its client (auth.ts, session.ts) and owns no other query: guards and page sessions ask getRuntime().app",
      severity: "error",
      from: { path: "^server/auth/", pathNot: `^server/auth/(auth|session)[.]ts$|${TESTS}` },
      to: { path: DATA },
    },
    {
      name: "no-scaffolding-in-product",
      comment: "test scaffolding is for tests only",
      severity: "error",
      from: { pathNot: `${TESTS}|^(e2e|bench)/` },
      to: { path: TESTS },
    },
    {
      name: "components-browser-only",
      comment: "the browser imports components/ and protocol/ only (types: see protocol/)",
      severity: "error",
      from: { path: "^components/", pathNot: TESTS },
      to: { path: "^server/", pathNot: "^server/protocol/" },
    },
    {
      name: "every-file-in-a-layer",
      comment: "a new server folder takes its place in LAYERS before it is used",
      severity: "error",
      from: { path: "^server/" },
      to: {
        path: "^server/",
        pathNot: LAYERS.map((layer) => layer.path).concat(["^server/testing/"]),
      },
    },
  ],
  options: {
    doNotFollow: { path: ["node_modules", "^server/generated/"] },
    // Prisma's generated client is not followed but stays in the graph, so that the rules
    // see who imports it (excluded, an import of it was invisible to every rule)
    exclude: { path: ["^[.]next/", "^build/"] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
