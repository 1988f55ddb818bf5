/**
 * The secret form answers a resumed run holds, with the label of the field each
 * answered, so a refusal to write one into the repository can name the field. The
 * run gets the values (ResumeInput.secrets) and the formatted answer (one
 * `**Label**: value` line per field, form-schema.ts's formatFormAnswer); the label
 * of a value is the one on its line.
 */
import type { ResumeInput } from "../ports/executor.ts";

export interface SecretField {
  /** the field's label, as the form showed it */
  field: string;
  value: string;
}

const LABELLED_LINE = /^\*\*(.+?)\*\*:\s?(.*)$/;

/** The secret values of a resume, each with its field's label ("a secret field" when the answer does not show it). */
export function secretFields(resume: ResumeInput | undefined): SecretField[] {
  const secrets = (resume?.secrets ?? []).filter((value) => value !== "");
  if (secrets.length === 0) return [];
  const lines = resume!.answer.split("\n");
  return secrets.map((value) => {
    let label: string | null = null;
    let current: string | null = null;
    for (const line of lines) {
      const labelled = LABELLED_LINE.exec(line);
      if (labelled) current = labelled[1];
      const text = labelled ? labelled[2] : line.replace(/^> /, "");
      if (current !== null && (text === value || (value.includes("\n") && text !== "" && value.split("\n").includes(text)))) {
        label = current;
        break;
      }
    }
    return { field: label ?? "a secret field", value };
  });
}

/** The field whose secret answer `content` holds, or null. */
export function secretFieldIn(content: string, secrets: readonly SecretField[]): string | null {
  return secrets.find((secret) => content.includes(secret.value))?.field ?? null;
}
