/**
 * The request log line names the route and its query, but never a secret the URL carries
 * (issue 42): an invite link's token, a password-reset token, any `token`, `key`,
 * `secret`, `password` or `code` query value.
 */
import { describe, expect, it } from "vitest";
import { requestLogFields } from "./http-log.ts";

const logged = (url: string) => JSON.stringify(requestLogFields({ method: "GET", url }));

describe("the request log line", () => {
  it("keeps the path and harmless query values", () => {
    expect(requestLogFields({ method: "GET", url: "/api/v1/conversations/c1/events?after=12&limit=50" })).toEqual({
      method: "GET",
      url: "/api/v1/conversations/c1/events?after=12&limit=50",
    });
  });

  it("masks secrets carried in the query, whatever the case or encoding of the name", () => {
    for (const url of [
      "/sign-up?invite=INVITE-SECRET-1",
      "/sign-up?lang=en&invite=INVITE-SECRET-1#x",
      "/api/auth/verify-email?token=INVITE-SECRET-1&callbackURL=%2F",
      "/x?Access_Token=INVITE-SECRET-1",
      "/x?api_key=INVITE-SECRET-1",
      "/x?password=INVITE-SECRET-1",
      "/x?client_secret=INVITE-SECRET-1",
      "/x?code=INVITE-SECRET-1&state=s",
      "/x?%74oken=INVITE-SECRET-1",
      "/x?invite=INVITE-SECRET-1&invite=INVITE-SECRET-1",
      "/x?a=1&&invite=INVITE-SECRET-1&=&b",
    ]) {
      expect(logged(url), url).not.toContain("INVITE-SECRET-1");
    }
    expect(requestLogFields({ method: "GET", url: "/sign-up?lang=en&invite=abc" }).url).toBe("/sign-up?lang=en&invite=[redacted]");
  });

  it("masks a token carried in the path of a reset link", () => {
    expect(logged("/api/auth/reset-password/RESET-TOKEN-9?callbackURL=%2Fx")).not.toContain("RESET-TOKEN-9");
    expect(requestLogFields({ method: "GET", url: "/api/auth/reset-password/RESET-TOKEN-9" }).url).toBe(
      "/api/auth/reset-password/[redacted]",
    );
  });

  it("copes with what is not a well-formed URL", () => {
    expect(requestLogFields({ method: "GET", url: "/%E0%A4%A?invite=%ZZ" }).url).toBe("/%E0%A4%A?invite=[redacted]");
    expect(requestLogFields({ method: "GET" })).toEqual({ method: "GET", url: undefined });
  });
});
