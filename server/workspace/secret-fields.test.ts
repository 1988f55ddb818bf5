import { describe, expect, it } from "vitest";
import { secretFieldIn, secretFields } from "./secret-fields.ts";

describe("secret form answers in a run", () => {
  it("pairs each secret value with the label of the field it answered", () => {
    const resume = {
      previousRunId: "r",
      answer: "**Region**: eu-west\n**API key**: sk-123\n**Notes**:\n> line one\n> pass: hunter2",
      secrets: ["sk-123", "line one\npass: hunter2"],
    };
    expect(secretFields(resume)).toEqual([
      { field: "API key", value: "sk-123" },
      { field: "Notes", value: "line one\npass: hunter2" },
    ]);
    expect(secretFields(undefined)).toEqual([]);
    expect(secretFields({ previousRunId: "r", answer: "(no answer given)", secrets: ["x1"] })).toEqual([
      { field: "a secret field", value: "x1" },
    ]);
  });

  it("finds a secret anywhere in content", () => {
    const secrets = [{ field: "API key", value: "sk-123" }];
    expect(secretFieldIn("const key = 'sk-123';", secrets)).toBe("API key");
    expect(secretFieldIn("const key = process.env.KEY;", secrets)).toBeNull();
  });
});
