import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { malformedRequestReason } from "./request-gate.ts";

const state = (value: unknown) => encodeURIComponent(JSON.stringify(value));
/** a router state as Next's client sends it: a dynamic segment, a page, a refetch marker */
const REAL_STATE = ["", { children: [["conversationId", "abc", "d", null], { children: ["__PAGE__", {}] }] }, null, "refetch"];

describe("malformedRequestReason", () => {
  it("passes ordinary requests and a real router state", () => {
    expect(malformedRequestReason({ url: "/c/abc?tab=plan&q=a%20b" })).toBeNull();
    expect(malformedRequestReason({ url: "/api/v1/conversations/x/events?after=3", routerStateTree: state(REAL_STATE) })).toBeNull();
    expect(malformedRequestReason({ url: "/%E2%9C%93" })).toBeNull();
  });

  it("names a broken path encoding, a NUL in the query and a malformed router state", () => {
    expect(malformedRequestReason({ url: "/c/%E0%A4%A" })).toMatch(/^path:/);
    expect(malformedRequestReason({ url: "/api/search?q=a%00b" })).toMatch(/^query: .*NUL/);
    expect(malformedRequestReason({ url: "/api/search?q=%zz" })).toMatch(/^query: malformed/);
    expect(malformedRequestReason({ url: "/", routerStateTree: "%7B" })).toMatch(/^Next-Router-State-Tree: not %-encoded JSON/);
    expect(malformedRequestReason({ url: "/", routerStateTree: state({ a: 1 }) })).toMatch(/^Next-Router-State-Tree: not a router state/);
    expect(malformedRequestReason({ url: "/", routerStateTree: state(["", { children: [1, {}] }]) })).toMatch(/not a router state/);
    expect(malformedRequestReason({ url: "/", routerStateTree: [state(REAL_STATE), state(REAL_STATE)] })).toMatch(/more than once/);
  });

  it("never throws, whatever the target and header", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.option(fc.string({ unit: "binary" }), { nil: undefined }), (url, header) => {
        const reason = malformedRequestReason({ url: `/${url}`, routerStateTree: header });
        expect(reason === null || typeof reason === "string").toBe(true);
      }),
    );
  });
});
