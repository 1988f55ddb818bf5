import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { personHandles, resolveMentions, tokenizeMentions } from "./mentions.ts";

describe("tokenizeMentions", () => {
  it("finds handles typed in full, wherever they stand on their own", () => {
    expect(tokenizeMentions("@analyst what do you think?")).toEqual(["analyst"]);
    expect(tokenizeMentions("Thanks @Writer, and (@researcher): go")).toEqual(["writer", "researcher"]);
    expect(tokenizeMentions("@analyst @analyst twice")).toEqual(["analyst"]);
    expect(tokenizeMentions("line one\n@writer on line two")).toEqual(["writer"]);
  });

  it("ignores e-mail addresses, paths, code and partial words", () => {
    expect(tokenizeMentions("mail ada@analyst.com")).toEqual([]);
    expect(tokenizeMentions("see /users/@writer and x@writer")).toEqual([]);
    expect(tokenizeMentions("run `@writer` or\n```\n@analyst\n```")).toEqual([]);
    expect(tokenizeMentions("@writer's draft")).toEqual(["writer"]);
    expect(tokenizeMentions("@ alone, @@double")).toEqual([]);
  });

  it("never reports a handle that is not written in the text (property)", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        for (const handle of tokenizeMentions(text)) expect(text.toLowerCase()).toContain(`@${handle}`);
      }),
    );
  });

  it("finds a handle inserted as a word into any text without code (property)", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 80 }).filter((s) => !s.includes("`")),
        fc.stringMatching(/^[a-z0-9_-]{1,12}$/),
        (text, handle) => {
          expect(tokenizeMentions(`${text} @${handle} ok`)).toContain(handle);
        },
      ),
    );
  });
});

describe("resolveMentions", () => {
  const known = {
    conversationAgents: ["commander", "analyst"],
    people: ["ada", "adalovelace"],
    workspaceAgents: ["commander", "analyst", "writer"],
  };
  it("sorts handles into this conversation's agents, its people and agents elsewhere; others are plain text", () => {
    expect(resolveMentions("@analyst and @ada, ask @writer; @nobody", known)).toEqual({
      agents: ["analyst"],
      people: ["ada"],
      outsideAgents: ["writer"],
    });
  });
});

describe("personHandles", () => {
  it("is the name without spaces and the first name, folded to plain letters", () => {
    expect(personHandles("Ada Lovelace")).toEqual(["adalovelace", "ada"]);
    expect(personHandles("Zoë")).toEqual(["zoe"]);
    expect(personHandles("  ")).toEqual([]);
  });
});
