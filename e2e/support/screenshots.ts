/**
 * Where the tests save screenshots of the main screens: test-results/ normally, so a
 * test run leaves the tree clean; docs/screenshots/ (what the README shows) when
 * BATON_UPDATE_SCREENSHOTS=1.
 */
export function screenshotPath(name: string): string {
  const folder = process.env.BATON_UPDATE_SCREENSHOTS === "1" ? "docs/screenshots" : "test-results/screenshots";
  return `${folder}/${name}.png`;
}
