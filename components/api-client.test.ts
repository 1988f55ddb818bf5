import { afterEach, describe, expect, it, vi } from "vitest";
import { api, apiPath, ApiError, routes } from "./api-client.ts";

type Call = { url: string; init: RequestInit };

function answer(status: number, body: unknown): Call[] {
  const calls: Call[] = [];
  vi.stubGlobal("fetch", (url: string, init: RequestInit) => {
    calls.push({ url, init });
    return Promise.resolve(status === 204 ? new Response(null, { status }) : Response.json(body, { status }));
  });
  return calls;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("the typed client", () => {
  it("fills the path from the table and sends the body as JSON with the table's method", async () => {
    const calls = answer(200, { userId: "u/1", role: "owner" });
    const result = await api.members.setRole({ conversationId: "c1", userId: "u/1" }, { role: "owner" });
    expect(result).toEqual({ userId: "u/1", role: "owner" });
    expect(calls).toHaveLength(1);
    expect(calls[0].url).toBe("/api/conversations/c1/members/u%2F1");
    expect(calls[0].init.method).toBe("PATCH");
    expect(calls[0].init.credentials).toBe("same-origin");
    expect(calls[0].init.headers).toEqual({ "Content-Type": "application/json" });
    expect(calls[0].init.body).toBe(JSON.stringify({ role: "owner" }));
  });

  it("a route without path parameters takes the body first; one without a body takes nothing", async () => {
    const created = answer(201, { id: "c9", title: "Hi" });
    await api.conversations.create({ title: "Hi", agentHandles: [] });
    expect(created[0].url).toBe("/api/conversations");
    expect(created[0].init.method).toBe("POST");
    const listed = answer(200, { invitations: [] });
    await api.members.myInvitations();
    expect(listed[0].url).toBe("/api/invitations");
    expect(listed[0].init.body).toBeUndefined();
  });

  it("204 answers undefined", async () => {
    const calls = answer(204, null);
    await expect(api.members.removeAgent({ conversationId: "c", agentId: "a" })).resolves.toBeUndefined();
    expect(calls[0].init.method).toBe("DELETE");
  });

  it("a multipart upload is sent as FormData, without a JSON content type", async () => {
    const attachment = { id: "f", name: "a.txt", mediaType: "text/plain", size: 1, untrusted: false };
    const calls = answer(201, { attachment });
    const data = new FormData();
    data.set("file", new Blob(["x"]), "a.txt");
    await expect(api.conversations.upload({ conversationId: "c" }, data)).resolves.toEqual({ attachment });
    expect(calls[0].init.body).toBe(data);
    expect(calls[0].init.headers).toBeUndefined();
  });

  it("errors carry the server's code and message (the app's shape and better-auth's)", async () => {
    answer(409, { error: { code: "conflict", message: "already an owner" } });
    const error = await api.members.setRole({ conversationId: "c", userId: "u" }, { role: "owner" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 409, code: "conflict", message: "already an owner" });
    answer(401, { code: "INVALID_EMAIL_OR_PASSWORD", message: "Invalid email or password" });
    await expect(api.account.signIn({ email: "a@b.c", password: "x" })).rejects.toMatchObject({
      status: 401,
      code: "INVALID_EMAIL_OR_PASSWORD",
      message: "Invalid email or password",
    });
  });

  it("outside production an answer of another shape fails, naming the route", async () => {
    answer(200, { commanderReplies: "sometimes" });
    await expect(api.conversations.settings({ conversationId: "c" }, { commanderReplies: "always" })).rejects.toMatchObject({
      code: "bad_response",
      message: expect.stringContaining("PATCH /api/conversations/:conversationId answered another shape"),
    });
  });

  it("a route with a query schema encodes its query into the URL, leaving out what is not given", async () => {
    const calls = answer(200, { results: [] });
    await expect(api.search.messages({ q: 'a&b "phrase" -not' })).resolves.toEqual({ results: [] });
    expect(calls[0].url).toBe("/api/search?q=a%26b+%22phrase%22+-not");
    expect(calls[0].init.method).toBe("GET");
    expect(calls[0].init.body).toBeUndefined();
    await api.search.messages({ q: "x", limit: 5 });
    expect(calls[1].url).toBe("/api/search?q=x&limit=5");
  });

  it("the query schema is what the route reads: a bad limit is refused naming it", () => {
    const query = routes.search.messages.query;
    expect(query.parse({ q: "x", limit: "7" })).toEqual({ q: "x", limit: 7 });
    for (const limit of ["1e3", " 7", "0", "51", "x"]) {
      const parsed = query.safeParse({ q: "x", limit });
      expect(parsed.success, limit).toBe(false);
      expect(parsed.error?.issues[0].path).toEqual(["limit"]);
    }
    expect(query.safeParse({}).success).toBe(false);
  });

  it("apiPath builds a link to a file route", () => {
    expect(apiPath(routes.conversations.artifact, { conversationId: "c", artifactId: "a b" })).toBe("/api/conversations/c/artifacts/a%20b");
  });
});
