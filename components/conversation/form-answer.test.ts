import { describe, expect, it } from "vitest";
import type { FormSpec } from "@/server/protocol/forms.ts";
import { answerProblems, readAnswer, serverProblems } from "./form-answer.ts";

const spec: FormSpec = {
  title: "Which venue?",
  fields: [
    { name: "venue", label: "Venue", type: "text", required: true },
    { name: "notes", label: "Notes", type: "textarea", required: false },
    { name: "size", label: "Size", type: "select", required: true, options: ["small", "large"] },
    { name: "budget", label: "Budget", type: "number", required: true },
    { name: "outdoor", label: "Outdoors?", type: "boolean", required: true },
    { name: "key", label: "Key", type: "text", required: false, secret: true },
  ],
};

const inputs = (values: Record<string, string>) => (name: string) => values[name] ?? null;

describe("a form's answer in the browser", () => {
  it("reads each input as its field's type", () => {
    expect(readAnswer(spec, inputs({ venue: "Park", size: "small", budget: "12.5", outdoor: "no", key: "" }))).toEqual({
      venue: "Park",
      notes: null,
      size: "small",
      budget: 12.5,
      outdoor: false,
      key: null,
    });
    expect(readAnswer(spec, inputs({ budget: "twelve", outdoor: "yes" }))).toMatchObject({ budget: "twelve", outdoor: true });
  });

  it("names each field's problem with the server's rules, and nothing for a good answer", () => {
    expect(answerProblems(spec, readAnswer(spec, inputs({ budget: "twelve", size: "huge" })))).toEqual({
      venue: "is required",
      size: '"huge" is not one of the options (small, large)',
      budget: "expected a number",
      outdoor: "is required",
    });
    expect(answerProblems(spec, readAnswer(spec, inputs({ venue: "Park", size: "large", budget: "0", outdoor: "yes" })))).toEqual({});
  });

  it("maps the server's refusal back to the fields it names", () => {
    const message =
      "The form answer is invalid:\n- venue: is 10001 characters long; the limit is 10000\n- answer: the answer must be an object";
    expect(serverProblems(spec, message)).toEqual({
      venue: "is 10001 characters long; the limit is 10000",
      "": "answer: the answer must be an object",
    });
    expect(serverProblems(spec, "Form already answered")).toEqual({ "": "Form already answered" });
  });
});
