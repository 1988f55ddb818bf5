import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { plainText } from "./plain-text.ts";

describe("plainText", () => {
  it("drops markdown's marks and keeps the words, blocks apart", () => {
    expect(plainText("## Synthesis\n\n**Go** wins for a *CLI*.")).toBe("Synthesis Go wins for a CLI.");
    expect(plainText("- one\n- two `code`\n\n> quoted [link](https://example.com)")).toBe("one two code quoted link");
    expect(plainText("Use a <div> wrapper")).toBe("Use a <div> wrapper");
    expect(plainText("```ts\nconst a = 1;\n```")).toBe("const a = 1;");
  });

  it("leaves words without markdown as they were, apart from whitespace (property)", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z][A-Za-z ,]{0,60}$/), (text) => {
        expect(plainText(text)).toBe(text.replace(/\s+/g, " ").trim());
      }),
    );
  });
});
