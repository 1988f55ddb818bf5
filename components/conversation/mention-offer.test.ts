import { describe, expect, it } from "vitest";
import { outsideAgentsTyped, unknownHandles } from "./mention-offer.ts";

const directory = {
  conversationAgents: ["commander", "researcher"],
  people: [{ name: "Ada Lovelace" }],
  workspaceAgents: ["commander", "researcher", "analyst", "writer"],
};

describe("the offer to add a mentioned agent", () => {
  it("names a workspace agent typed in full that is not in the conversation", () => {
    expect(outsideAgentsTyped("@analyst what do you think?", directory)).toEqual(["analyst"]);
    expect(outsideAgentsTyped("ask @researcher and @Writer, please", directory)).toEqual(["writer"]);
  });
  it("offers nothing for agents already here, people, unknown handles, code or e-mail addresses", () => {
    expect(outsideAgentsTyped("@researcher @ada @nobody", directory)).toEqual([]);
    expect(outsideAgentsTyped("see `@analyst` and mail ada@analyst.example", directory)).toEqual([]);
  });
  it("offers nothing until the workspace's agents are known, and stops once the agent was added", () => {
    expect(outsideAgentsTyped("@analyst", { ...directory, workspaceAgents: null })).toEqual([]);
    expect(outsideAgentsTyped("@analyst", { ...directory, conversationAgents: [...directory.conversationAgents, "analyst"] })).toEqual([]);
  });
  it("asks the workspace only about handles that are neither the conversation's agents nor its people", () => {
    expect(unknownHandles("@researcher @ada @adalovelace @analyst", directory)).toEqual(["analyst"]);
    expect(unknownHandles("no mention here", directory)).toEqual([]);
  });
});
