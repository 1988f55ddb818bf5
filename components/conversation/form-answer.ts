/**
 * Turning a form's inputs into an answer and the problems with it into one message per
 * field: checked in the browser with the same rules the server applies
 * (server/core/form-schema.ts), and the server's own refusal mapped back to its fields.
 */
import { FormAnswerError, validateFormAnswer, type FormSpec } from "@/server/protocol/forms.ts";

export type AnswerValues = Record<string, string | number | boolean | null>;

/** What the inputs hold, typed per field: yes/no as a boolean, a number as a number, an empty input as null. */
export function readAnswer(spec: FormSpec, get: (name: string) => string | null): AnswerValues {
  const values: AnswerValues = {};
  for (const field of spec.fields) {
    const raw = get(field.name);
    if (raw === null || raw === "") values[field.name] = null;
    else if (field.type === "boolean") values[field.name] = raw === "yes" ? true : raw === "no" ? false : raw;
    // an unparseable number is sent as typed so the check names it ("expected a number")
    else if (field.type === "number") values[field.name] = Number.isFinite(Number(raw)) ? Number(raw) : raw;
    else values[field.name] = raw;
  }
  return values;
}

/** The problems with an answer, by field name ("" for the answer as a whole); empty when it is fine. */
export function answerProblems(spec: FormSpec, values: AnswerValues): Record<string, string> {
  try {
    validateFormAnswer(spec, values);
    return {};
  } catch (error) {
    if (!(error instanceof FormAnswerError)) throw error;
    return Object.fromEntries(error.issues.map((issue) => [issue.field, issue.message]));
  }
}

/**
 * The server's refusal of an answer ("The form answer is invalid:\n- budget: expected a
 * number") as problems by field; a line naming no field of the form goes under "".
 */
export function serverProblems(spec: FormSpec, message: string): Record<string, string> {
  const names = new Set(spec.fields.map((field) => field.name));
  const problems: Record<string, string> = {};
  const lines = message.split("\n").slice(1);
  for (const line of lines) {
    const match = /^- ([A-Za-z][A-Za-z0-9_]*): (.+)$/.exec(line);
    const key = match && names.has(match[1]) ? match[1] : "";
    const text = match ? (key === "" ? `${match[1]}: ${match[2]}` : match[2]) : line.replace(/^- /, "");
    if (text.trim() !== "") problems[key] = problems[key] ? `${problems[key]}; ${text}` : text;
  }
  if (Object.keys(problems).length === 0) problems[""] = message;
  return problems;
}
