/**
 * Sign-in limits in front of better-auth's real handler: per account (failures, whatever
 * the address; unknown emails answer the same) and per address (every attempt), and
 * Secure cookies when the request came over https.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccountsFixture, nextTestAddress, signUpInvited, TEST_ORIGIN, type AccountsFixture } from "./testing/accounts.ts";
import { CLIENT_IP_HEADER, CLIENT_PROTO_HEADER } from "../http/client-address.ts";
import { SIGN_IN_ACCOUNT_RATE, SIGN_IN_ADDRESS_RATE } from "./rate-limit.ts";
import { handleAuthRequest } from "./auth-handler.ts";
import { getAuth } from "./session.ts";

let fixture: AccountsFixture;

/** better-auth's verdict without its scrypt cost, where the test is about the limiter's bookkeeping */
const fakeAuth = async (request: Request) => {
  const { password } = (await request.json()) as { password: string };
  return Response.json({}, { status: password === "correct horse battery" ? 200 : 401 });
};

function signIn(email: string, password: string, options: { address?: string; https?: boolean; fake?: boolean } = {}) {
  const request = new Request(`${TEST_ORIGIN}/api/auth/sign-in/email`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      origin: TEST_ORIGIN,
      [CLIENT_IP_HEADER]: options.address ?? nextTestAddress(),
      [CLIENT_PROTO_HEADER]: options.https ? "https" : "http",
    },
    body: JSON.stringify({ email, password }),
  });
  return handleAuthRequest(request, options.fake ? fakeAuth : (forwarded) => getAuth(fixture.db.prisma).handler(forwarded));
}

beforeAll(async () => {
  fixture = await createAccountsFixture();
});

afterAll(async () => {
  await fixture?.close();
});

describe("sign-in limits", () => {
  it("locks an account after repeated failures from many addresses, and an unknown email the same way", async () => {
    const victim = await signUpInvited(fixture.db.prisma, fixture.admin, "Vic");
    for (let i = 0; i < SIGN_IN_ACCOUNT_RATE.max; i++) expect((await signIn(victim.email, `wrong-${i}-password`)).status).toBe(401);
    // the right password from yet another address: still locked
    const locked = await signIn(victim.email, "correct horse battery");
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(60);
    // another account is unaffected
    const other = await signUpInvited(fixture.db.prisma, fixture.admin, "Other");
    expect((await signIn(other.email, "correct horse battery")).status).toBe(200);
    // an address that does not exist behaves identically: no enumeration through the lock
    const ghost = "ghost@example.com";
    for (let i = 0; i < SIGN_IN_ACCOUNT_RATE.max; i++)
      expect((await signIn(ghost, `wrong-${i}-password`, { fake: true })).status).toBe(401);
    expect((await signIn(ghost, "whatever-password", { fake: true })).status).toBe(429);
  });

  it("a success clears the account's failures", async () => {
    const email = "sue@example.com";
    for (let i = 0; i < SIGN_IN_ACCOUNT_RATE.max - 1; i++) await signIn(email, `wrong-${i}-password`, { fake: true });
    expect((await signIn(email, "correct horse battery", { fake: true })).status).toBe(200);
    for (let i = 0; i < SIGN_IN_ACCOUNT_RATE.max - 1; i++)
      expect((await signIn(email, `wrong-${i}-password`, { fake: true })).status).toBe(401);
    expect((await signIn(email, "correct horse battery", { fake: true })).status).toBe(200);
  });

  it("limits one address across accounts", async () => {
    const address = "192.0.2.44";
    for (let i = 0; i < SIGN_IN_ADDRESS_RATE.max; i++) await signIn(`spray-${i}@example.com`, "password-guess", { address, fake: true });
    const limited = await signIn("spray-last@example.com", "password-guess", { address, fake: true });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).not.toBeNull();
    // the real handler behind it, from another address: an ordinary wrong-password answer
    expect((await signIn("spray-last@example.com", "password-guess", { address: "192.0.2.45" })).status).toBe(401);
  });

  it("limits one IPv6 /64 as one address, whichever of its addresses each attempt comes from", async () => {
    for (let i = 0; i < SIGN_IN_ADDRESS_RATE.max; i++) {
      await signIn(`rotate-${i}@example.com`, "password-guess", { address: `2001:db8:44:1:${i.toString(16)}::1`, fake: true });
    }
    const limited = await signIn("rotate-last@example.com", "password-guess", { address: "2001:db8:44:1:ffff::9", fake: true });
    expect(limited.status).toBe(429);
  });

  it("marks cookies Secure when the client connected over https", async () => {
    const user = await signUpInvited(fixture.db.prisma, fixture.admin, "Tess");
    const plain = await signIn(user.email, "correct horse battery");
    expect(plain.headers.getSetCookie().some((cookie) => /;\s*secure/i.test(cookie))).toBe(false);
    const secure = await signIn(user.email, "correct horse battery", { https: true });
    const cookies = secure.headers.getSetCookie();
    expect(cookies.length).toBeGreaterThan(0);
    expect(cookies.every((cookie) => /;\s*secure/i.test(cookie))).toBe(true);
  });
});
