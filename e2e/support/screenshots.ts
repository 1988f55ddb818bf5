/**
 * Where the tests save screenshots of the main screens: test-results/ normally, so a
 * test run leaves the tree clean. With BATON_UPDATE_SCREENSHOTS=1 the ones the README
 * and the docs pages show go to docs/screenshots/ instead; the rest stay in test-results/,
 * since only screenshots someone reads belong in git.
 */
const SHOWN_IN_DOCS = new Set([
  "admin-plan-timeline",
  "admin-usage",
  "chinese-conversation-1280",
  "chinese-conversation-phone",
  "chinese-plan-closing-1280",
  "conversation-dark",
  "conversation-phone",
  "drawer-phone",
  "form-blocked",
  "header-1280",
  "plan-completed",
  "plan-fifty-steps",
  "plan-phone",
  "plan-readable",
  "plan-running",
  "search",
  "step-detail",
  "working-on-code-diff",
  "working-on-code",
]);

export function screenshotPath(name: string): string {
  const shown = process.env.BATON_UPDATE_SCREENSHOTS === "1" && SHOWN_IN_DOCS.has(name);
  return `${shown ? "docs/screenshots" : "test-results/screenshots"}/${name}.png`;
}
