/**
 * A count with its noun, in the right number: "1 step", "2 steps", "0 files". Pure; the
 * executor's messages and the browser use the same words.
 */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}
