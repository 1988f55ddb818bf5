import { describe, expect, it } from "vitest";
import { tokenizeMentions } from "@/server/protocol/mentions.ts";
import { MENTION_QUERY, mentionCandidates } from "./mention-candidates.ts";

const agents = [
  { id: "a1", handle: "commander", name: "Commander", role: "commander" as const },
  { id: "a2", handle: "researcher", name: "Research Agent", role: "sub_agent" as const },
];
const people = [
  { id: "u1", name: "Alice Martin" },
  { id: "u2", name: "Bob Stone" },
  { id: "u3", name: "张三" },
];

describe("mentionCandidates", () => {
  it("offers agents first, then people, by handle or any word of the name", () => {
    expect(mentionCandidates({ query: "", agents, people }).map((c) => c.handle)).toEqual([
      "commander",
      "researcher",
      "alicemartin",
      "bobstone",
    ]);
    expect(mentionCandidates({ query: "mar", agents, people }).map((c) => c.key)).toEqual(["person:u1"]);
    expect(mentionCandidates({ query: "RES", agents, people }).map((c) => c.key)).toEqual(["agent:a2"]);
  });

  it("inserts a handle the shared tokeniser reads back as the same person", () => {
    for (const candidate of mentionCandidates({ query: "", agents, people })) {
      expect(tokenizeMentions(`hi @${candidate.handle}, look`)).toEqual([candidate.handle]);
    }
  });
});

describe("MENTION_QUERY", () => {
  it("opens the list for an @ typed in any case, as the tokeniser reads it", () => {
    const query = (typed: string) => MENTION_QUERY.exec(typed)?.[2] ?? null;
    expect(query("Hi @B")).toBe("B");
    expect(query("@")).toBe("");
    expect(tokenizeMentions("Hi @Bo")).toEqual(["bo"]);
    // the list then offers Bob for "B", as for "b"
    expect(mentionCandidates({ query: query("Hi @B") ?? "", agents, people }).map((c) => c.handle)).toEqual(["bobstone"]);
    expect(query("mail@example")).toBeNull();
  });
});
