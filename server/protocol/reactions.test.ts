import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { isReactionEmoji, REACTION_EMOJI, summarizeReactions } from "./reactions.ts";

describe("summarizeReactions", () => {
  it("gives one entry per emoji in first-used order, each person once", () => {
    const rows = [
      { emoji: "👍", userId: "a", userName: "Ada" },
      { emoji: "🎉", userId: "b", userName: "Bo" },
      { emoji: "👍", userId: "b", userName: "Bo" },
    ];
    expect(summarizeReactions(rows)).toEqual([
      {
        emoji: "👍",
        people: [
          { id: "a", name: "Ada" },
          { id: "b", name: "Bo" },
        ],
      },
      { emoji: "🎉", people: [{ id: "b", name: "Bo" }] },
    ]);
  });

  it("counts every distinct (emoji, person) exactly once", () => {
    const row = fc.record({
      emoji: fc.constantFrom(...REACTION_EMOJI),
      userId: fc.constantFrom("a", "b", "c"),
      userName: fc.constant("n"),
    });
    fc.assert(
      fc.property(fc.array(row, { maxLength: 30 }), (rows) => {
        const total = summarizeReactions(rows).reduce((sum, entry) => sum + entry.people.length, 0);
        expect(total).toBe(new Set(rows.map((r) => `${r.emoji}|${r.userId}`)).size);
      }),
    );
  });

  it("accepts only the picker's emoji", () => {
    expect(isReactionEmoji("👍")).toBe(true);
    expect(isReactionEmoji("<script>")).toBe(false);
  });
});
