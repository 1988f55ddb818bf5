/**
 * Forms a blocked step raises (the ask_user tool), and checking a person's answer
 * against them before the step resumes.
 */
import { z } from "zod";
import { FormAnswerError, type FormAnswerIssue } from "./errors.ts";
import { FORM_FIELD_TYPES, SECRET_MASK, type FormField, type FormSpec } from "./types.ts";
import { isStorableText, storableText, UNSTORABLE_TEXT_MESSAGE } from "./text.ts";

/** Longest text a single answer field may hold. */
export const MAX_FORM_TEXT_CHARS = 10_000;
export const MAX_FORM_FIELDS = 20;

const formFieldSchema = z.strictObject({
  name: storableText()
    .regex(/^[a-z][a-z0-9_]*$/i, "must start with a letter and contain only letters, digits and _")
    .max(64),
  label: storableText().trim().min(1).max(200),
  type: z.enum(FORM_FIELD_TYPES),
  required: z.boolean(),
  options: z.array(storableText().min(1).max(200)).min(1).max(50).optional().describe("required for select"),
  secret: z
    .boolean()
    .optional()
    .describe("text fields only: a password, token or key. Only you receive the value; everyone else sees it masked"),
});

/**
 * A FormSpec as an agent proposes it: 1..20 fields, unique names, select fields with
 * options. The ask_user tool shows the model this schema (refinements are checked, not shown).
 */
export const formSpecSchema = z
  .strictObject({
    title: storableText().trim().min(1).max(200),
    fields: z.array(formFieldSchema).min(1).max(MAX_FORM_FIELDS),
  })
  .superRefine((form, context) => {
    const names = new Set<string>();
    form.fields.forEach((field, position) => {
      if (names.has(field.name)) {
        context.addIssue({ code: "custom", path: ["fields", position, "name"], message: `field name "${field.name}" repeats` });
      }
      names.add(field.name);
      if (field.type === "select" && (field.options === undefined || field.options.length === 0)) {
        context.addIssue({ code: "custom", path: ["fields", position, "options"], message: "a select field needs options" });
      }
      if (field.secret === true && field.type !== "text") {
        context.addIssue({ code: "custom", path: ["fields", position, "secret"], message: "only a text field can be secret" });
      }
      if (field.options !== undefined && new Set(field.options).size !== field.options.length) {
        context.addIssue({ code: "custom", path: ["fields", position, "options"], message: "options repeat" });
      }
    });
  }) satisfies z.ZodType<FormSpec>;

export type FormValue = string | number | boolean;

export { SECRET_MASK };

function isMissing(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === "string" && value.trim() === "");
}

/** Coerce one value to the field's type, or describe why it does not fit. */
function coerceField(field: FormField, value: unknown): { value: FormValue } | { problem: string } {
  switch (field.type) {
    case "text":
    case "textarea":
      if (typeof value !== "string") return { problem: "expected text" };
      if (!isStorableText(value)) return { problem: UNSTORABLE_TEXT_MESSAGE };
      if (value.length > MAX_FORM_TEXT_CHARS) return { problem: `is ${value.length} characters long; the limit is ${MAX_FORM_TEXT_CHARS}` };
      return { value };
    case "number": {
      // browsers send inputs as strings; accept a numeric string as the number it spells
      const number = typeof value === "string" ? Number(value.trim()) : value;
      if (typeof number !== "number" || !Number.isFinite(number)) return { problem: "expected a number" };
      return { value: number };
    }
    case "boolean":
      if (typeof value === "boolean") return { value };
      if (value === "true" || value === "false") return { value: value === "true" };
      return { problem: "expected true or false" };
    case "select":
      if (typeof value !== "string") return { problem: "expected one of the options" };
      if (!(field.options ?? []).includes(value)) {
        return { problem: `"${value}" is not one of the options (${(field.options ?? []).join(", ")})` };
      }
      return { value };
    default:
      return { problem: `has an unknown field type ${String(field.type satisfies never)}` };
  }
}

/**
 * Check an answer against its form: required fields present, values of the right
 * type, select values among the options, text within MAX_FORM_TEXT_CHARS. Optional
 * fields left empty are omitted from the result.
 * @throws FormAnswerError naming each offending field
 */
export function validateFormAnswer(form: FormSpec, values: unknown): Record<string, FormValue> {
  if (typeof values !== "object" || values === null || Array.isArray(values)) {
    throw new FormAnswerError([{ field: "", message: "the answer must be an object of field values" }]);
  }
  const given = values as Record<string, unknown>;
  const issues: FormAnswerIssue[] = [];
  const result: Record<string, FormValue> = {};
  const names = new Set(form.fields.map((field) => field.name));
  for (const name of Object.keys(given)) {
    if (!names.has(name)) issues.push({ field: name, message: "is not a field of this form" });
  }
  for (const field of form.fields) {
    const value = Object.hasOwn(given, field.name) ? given[field.name] : undefined;
    if (isMissing(value)) {
      if (field.required) issues.push({ field: field.name, message: "is required" });
      continue;
    }
    const coerced = coerceField(field, value);
    if ("problem" in coerced) issues.push({ field: field.name, message: coerced.problem });
    else result[field.name] = coerced.value;
  }
  if (issues.length > 0) throw new FormAnswerError(issues);
  return result;
}

/** The answer with every secret field's value replaced by SECRET_MASK: what may be stored, shown and summarised. */
export function maskSecretAnswers(form: FormSpec, values: Readonly<Record<string, FormValue>>): Record<string, FormValue> {
  const masked: Record<string, FormValue> = { ...values };
  for (const field of form.fields) {
    if (field.secret === true && Object.hasOwn(masked, field.name)) masked[field.name] = SECRET_MASK;
  }
  return masked;
}

/** The answered values of the secret fields: what the asking run must mask in everything it emits. */
export function secretAnswers(form: FormSpec, values: Readonly<Record<string, FormValue>>): string[] {
  return form.fields.flatMap((field) => (field.secret === true && Object.hasOwn(values, field.name) ? [String(values[field.name])] : []));
}

function formatValue(value: FormValue): string {
  if (typeof value === "boolean") return value ? "yes" : "no";
  return String(value);
}

/**
 * A short markdown summary of a validated answer, one "**Label**: value" line per
 * answered field in form order; it becomes the step's output summary or the resume
 * message. Multi-line text is quoted below its label so it cannot fake other lines.
 */
export function formatFormAnswer(form: FormSpec, values: Readonly<Record<string, FormValue>>): string {
  const lines: string[] = [];
  for (const field of form.fields) {
    if (!Object.hasOwn(values, field.name)) continue;
    const text = formatValue(values[field.name]);
    if (text.includes("\n")) {
      lines.push(`**${field.label}**:`, ...text.split("\n").map((line) => `> ${line}`));
    } else {
      lines.push(`**${field.label}**: ${text}`);
    }
  }
  return lines.length > 0 ? lines.join("\n") : "(no answer given)";
}
