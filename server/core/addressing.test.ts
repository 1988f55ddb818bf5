import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addressees, COMMANDER_REPLY_MODES } from "./addressing.ts";

const none = { mentionedAgents: [], mentionedPeople: [], outsideAgents: [] };

describe("who answers a person's message", () => {
  it("auto: the commander answers every message that addresses nobody; when_addressed only @commander", () => {
    expect(addressees({ mode: "auto", ...none })).toEqual({ kind: "commander" });
    expect(addressees({ mode: "always", ...none })).toEqual({ kind: "commander" });
    expect(addressees({ mode: "when_addressed", ...none })).toEqual({ kind: "nobody", reason: "not-addressed" });
  });

  it("people talk among themselves by mentioning each other, in every mode (property)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...COMMANDER_REPLY_MODES),
        fc.uniqueArray(fc.stringMatching(/^[a-z]{1,8}$/), { minLength: 1, maxLength: 3 }),
        (mode, mentionedPeople) => {
          expect(addressees({ mode, ...none, mentionedPeople })).toEqual({ kind: "nobody", reason: "between-people" });
        },
      ),
    );
  });

  it("a message that mentions only people wakes no agent; one naming agents outside the conversation neither", () => {
    expect(addressees({ mode: "always", ...none, mentionedPeople: ["ada"] })).toEqual({
      kind: "nobody",
      reason: "between-people",
    });
    expect(addressees({ mode: "always", ...none, outsideAgents: ["writer"] })).toEqual({
      kind: "nobody",
      reason: "agents-outside",
    });
  });

  it("mentioned agents always answer, in every mode (property)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...COMMANDER_REPLY_MODES),
        fc.uniqueArray(fc.stringMatching(/^[a-z]{1,8}$/), { minLength: 1, maxLength: 4 }),
        fc.array(fc.stringMatching(/^[a-z]{1,8}$/), { maxLength: 3 }),
        fc.array(fc.stringMatching(/^[a-z]{1,8}$/), { maxLength: 3 }),
        (mode, agents, mentionedPeople, outsideAgents) => {
          expect(addressees({ mode, mentionedAgents: agents, mentionedPeople, outsideAgents })).toEqual({
            kind: "agents",
            handles: agents,
          });
        },
      ),
    );
  });
});
