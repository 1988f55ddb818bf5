import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addressees, COMMANDER_REPLY_MODES } from "./addressing.ts";

const none = { mentionedAgents: [], mentionedPeople: [], outsideAgents: [] };

describe("who answers a person's message", () => {
  it("auto: the commander answers everything while one person is here, only when addressed once several are", () => {
    expect(addressees({ mode: "auto", people: 1, ...none })).toEqual({ kind: "commander" });
    expect(addressees({ mode: "auto", people: 2, ...none })).toEqual({ kind: "nobody", reason: "not-addressed" });
    expect(addressees({ mode: "always", people: 5, ...none })).toEqual({ kind: "commander" });
    expect(addressees({ mode: "when_addressed", people: 1, ...none })).toEqual({ kind: "nobody", reason: "not-addressed" });
  });

  it("a message that mentions only people wakes no agent; one naming agents outside the conversation neither", () => {
    expect(addressees({ mode: "always", people: 1, ...none, mentionedPeople: ["ada"] })).toEqual({
      kind: "nobody",
      reason: "between-people",
    });
    expect(addressees({ mode: "always", people: 1, ...none, outsideAgents: ["writer"] })).toEqual({
      kind: "nobody",
      reason: "agents-outside",
    });
  });

  it("mentioned agents always answer, in every mode and however many people (property)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...COMMANDER_REPLY_MODES),
        fc.nat(20),
        fc.uniqueArray(fc.stringMatching(/^[a-z]{1,8}$/), { minLength: 1, maxLength: 4 }),
        fc.array(fc.stringMatching(/^[a-z]{1,8}$/), { maxLength: 3 }),
        fc.array(fc.stringMatching(/^[a-z]{1,8}$/), { maxLength: 3 }),
        (mode, people, agents, mentionedPeople, outsideAgents) => {
          expect(addressees({ mode, people, mentionedAgents: agents, mentionedPeople, outsideAgents })).toEqual({
            kind: "agents",
            handles: agents,
          });
        },
      ),
    );
  });
});
