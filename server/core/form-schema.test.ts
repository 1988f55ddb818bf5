import { describe, expect, it } from "vitest";
import { FormAnswerError } from "./errors.ts";
import fc from "fast-check";
import { formatFormAnswer, formSpecSchema, maskSecretAnswers, SECRET_MASK, secretAnswers, validateFormAnswer } from "./form-schema.ts";
import type { FormSpec } from "./types.ts";

const form: FormSpec = {
  title: "Details",
  fields: [
    { name: "name", label: "Name", type: "text", required: true },
    { name: "notes", label: "Notes", type: "textarea", required: false },
    { name: "count", label: "Count", type: "number", required: true },
    { name: "urgent", label: "Urgent", type: "boolean", required: false },
    { name: "tone", label: "Tone", type: "select", required: true, options: ["formal", "casual"] },
  ],
};

function answerIssues(values: unknown) {
  try {
    validateFormAnswer(form, values);
  } catch (error) {
    expect(error).toBeInstanceOf(FormAnswerError);
    expect((error as FormAnswerError).code).toBe("form_answer_invalid");
    return (error as FormAnswerError).issues;
  }
  throw new Error("expected the answer to be rejected");
}

describe("formSpecSchema", () => {
  it("accepts a valid form", () => {
    expect(formSpecSchema.parse(form)).toEqual(form);
  });

  it("rejects no fields, more than 20, bad and repeated names, select without options", () => {
    expect(formSpecSchema.safeParse({ title: "t", fields: [] }).success).toBe(false);
    const many = Array.from({ length: 21 }, (_, i) => ({ name: `f${i}`, label: "L", type: "text", required: false }));
    expect(formSpecSchema.safeParse({ title: "t", fields: many }).success).toBe(false);
    const result = formSpecSchema.safeParse({
      title: "t",
      fields: [
        { name: "1bad", label: "L", type: "text", required: false },
        { name: "a", label: "L", type: "text", required: false },
        { name: "a", label: "L", type: "text", required: false },
        { name: "pick", label: "L", type: "select", required: true },
      ],
    });
    expect(result.success).toBe(false);
    const paths = result.error!.issues.map((issue) => issue.path.join("."));
    expect(paths).toEqual(expect.arrayContaining(["fields.0.name", "fields.2.name", "fields.3.options"]));
  });
});

describe("validateFormAnswer", () => {
  it("returns coerced values and omits empty optional fields", () => {
    expect(validateFormAnswer(form, { name: "Ada", notes: "", count: "3", urgent: "true", tone: "formal" })).toEqual({
      name: "Ada",
      count: 3,
      urgent: true,
      tone: "formal",
    });
  });

  it("names missing required fields", () => {
    expect(answerIssues({ name: "  ", tone: "formal" })).toEqual([
      { field: "name", message: "is required" },
      { field: "count", message: "is required" },
    ]);
  });

  it("names fields of the wrong type", () => {
    expect(answerIssues({ name: 5, count: "many", urgent: "maybe", tone: "formal" }).map((issue) => issue.field)).toEqual([
      "name",
      "count",
      "urgent",
    ]);
  });

  it("rejects a select value that is not an option", () => {
    expect(answerIssues({ name: "a", count: 1, tone: "angry" })).toEqual([
      expect.objectContaining({ field: "tone", message: expect.stringContaining("not one of the options") }),
    ]);
  });

  it("rejects text over 10,000 characters", () => {
    expect(answerIssues({ name: "a", notes: "x".repeat(10_001), count: 1, tone: "casual" })).toEqual([
      expect.objectContaining({ field: "notes", message: expect.stringContaining("10001 characters") }),
    ]);
  });

  it("rejects unknown fields and non-objects", () => {
    expect(answerIssues({ name: "a", count: 1, tone: "casual", extra: 1 })).toEqual([
      { field: "extra", message: "is not a field of this form" },
    ]);
    expect(answerIssues(["a"])).toEqual([expect.objectContaining({ field: "" })]);
  });
});

describe("formatFormAnswer", () => {
  it("writes one bold label per answered field", () => {
    expect(formatFormAnswer(form, { name: "Ada", count: 3, urgent: false, tone: "formal" })).toBe(
      "**Name**: Ada\n**Count**: 3\n**Urgent**: no\n**Tone**: formal",
    );
  });

  it("quotes multi-line text and handles an empty answer", () => {
    expect(formatFormAnswer(form, { notes: "line 1\nline 2" })).toBe("**Notes**:\n> line 1\n> line 2");
    expect(formatFormAnswer(form, {})).toBe("(no answer given)");
  });
});

describe("secret fields", () => {
  const login: FormSpec = {
    title: "Sign in",
    fields: [
      { name: "user", label: "User", type: "text", required: true },
      { name: "token", label: "Token", type: "text", required: true, secret: true },
      { name: "backup", label: "Backup code", type: "text", required: false, secret: true },
    ],
  };

  it("a text field may be secret; no other type can", () => {
    expect(formSpecSchema.safeParse(login).success).toBe(true);
    const result = formSpecSchema.safeParse({
      title: "x",
      fields: [{ name: "n", label: "N", type: "textarea", required: true, secret: true }],
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]).toMatchObject({ path: ["fields", 0, "secret"], message: "only a text field can be secret" });
  });

  it("masks every answered secret value and lists them for the asking run", () => {
    const values = validateFormAnswer(login, { user: "ada", token: "s3cr3t-token" });
    expect(maskSecretAnswers(login, values)).toEqual({ user: "ada", token: SECRET_MASK });
    expect(secretAnswers(login, values)).toEqual(["s3cr3t-token"]);
    expect(formatFormAnswer(login, maskSecretAnswers(login, values))).toBe(`**User**: ada\n**Token**: ${SECRET_MASK}`);
    // the answer itself is left alone
    expect(values.token).toBe("s3cr3t-token");
  });

  it("no secret value survives masking, whatever was answered", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), fc.string(), (token, backup, user) => {
        fc.pre(token.trim() !== "" && backup.trim() !== "");
        const values = validateFormAnswer(login, { user: user.trim() === "" ? "u" : user, token, backup });
        const shown = maskSecretAnswers(login, values);
        expect(shown.token).toBe(SECRET_MASK);
        expect(shown.backup).toBe(SECRET_MASK);
        expect(secretAnswers(login, values)).toEqual([token, backup]);
      }),
      { numRuns: 100 },
    );
  });
});
