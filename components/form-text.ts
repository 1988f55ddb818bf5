/** A form field's text; a file (which has no text to show) reads as empty. */
export function formText(value: FormDataEntryValue | null | undefined): string {
  return typeof value === "string" ? value : "";
}
