/**
 * Better Auth's own routes store text too (a person's name, an avatar URL): what the
 * database cannot store is refused with a 400 naming the field, not a 500 or a silent
 * U+FFFD, and a name is bounded as the sign-up form bounds it (issue 42).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccountsFixture, nextTestAddress, TEST_ORIGIN, type AccountsFixture } from "./testing/accounts.ts";
import { CLIENT_IP_HEADER } from "../http/client-address.ts";
import { handleAuthRequest } from "./auth-handler.ts";
import { getAuth } from "./session.ts";
import { MAX_PERSON_NAME_CHARS } from "../protocol/limits.ts";

let fixture: AccountsFixture;

beforeAll(async () => {
  fixture = await createAccountsFixture();
});

afterAll(async () => {
  await fixture?.close();
});

async function post(path: string, body: unknown, cookie = fixture.admin.cookie): Promise<{ status: number; text: string }> {
  const request = new Request(`${TEST_ORIGIN}/api/auth${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: TEST_ORIGIN, host: "baton.test", cookie, [CLIENT_IP_HEADER]: nextTestAddress() },
    body: JSON.stringify(body),
  });
  const response = await handleAuthRequest(request, (forwarded) => getAuth(fixture.db.prisma).handler(forwarded));
  return { status: response.status, text: await response.text() };
}

const storedName = async () => (await fixture.db.prisma.user.findUniqueOrThrow({ where: { id: fixture.admin.id } })).name;

describe("text through Better Auth's routes", () => {
  it("a profile name or image with NUL or half an emoji is a 400 naming the field, and nothing changes", async () => {
    const before = await storedName();
    for (const [field, value] of [
      ["name", "Ada\u0000Lovelace"],
      ["name", "Ada \ud83d"],
      ["name", "\udc00Ada"],
      ["image", "https://example.com/\u0000.png"],
    ] as const) {
      const answer = await post("/update-user", { [field]: value });
      expect(answer.status, `${field}: ${JSON.stringify(value)}`).toBe(400);
      expect(answer.text).toContain(field);
      expect(answer.text.length).toBeLessThan(1000);
    }
    expect(await storedName()).toBe(before);
  });

  it("a name longer than the form allows is refused; one at the limit, emoji included, is kept whole", async () => {
    const long = await post("/update-user", { name: "👩‍👩‍👧‍👦".repeat(20_000) });
    expect(long.status).toBe(400);
    expect(long.text).toContain("name");
    expect(long.text.length).toBeLessThan(1000);
    const atLimit = "é".repeat(MAX_PERSON_NAME_CHARS - 2) + "🎉";
    expect((await post("/update-user", { name: atLimit })).status).toBe(200);
    expect(await storedName()).toBe(atLimit);
  });

  it("a name with a bidirectional override is refused: it would reorder every sentence it is shown in", async () => {
    for (const name of ["Ada\u202E", "\u202Dnimda", "Ada\u2067x\u2069"]) {
      const answer = await post("/update-user", { name });
      expect(answer.status, JSON.stringify(name)).toBe(400);
      expect(answer.text).toContain("name");
    }
    // right-to-left names need no control characters
    expect((await post("/update-user", { name: "שרה כהן" })).status).toBe(200);
  });

  it("sign-up refuses the same names before any account is made", async () => {
    const email = `unstorable-${Date.now()}@example.com`;
    for (const name of ["Eve\u0000", "Eve\ud800", "e".repeat(MAX_PERSON_NAME_CHARS + 1), "Eve\u202E"]) {
      const answer = await post("/sign-up/email", { email, password: "correct horse battery", name }, "");
      expect(answer.status, JSON.stringify(name).slice(0, 40)).toBe(400);
      expect(answer.text).toContain("name");
    }
    expect(await fixture.db.prisma.user.findUnique({ where: { email } })).toBeNull();
  });
});
