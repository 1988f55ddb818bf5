/**
 * An uploaded file's name is shown to everyone in the conversation: a right-to-left
 * override in it (`invoice‮fdp.exe` shows as `invoiceexe.pdf`) must not disguise what the
 * file is, and text the database cannot store or a name cut mid-emoji must not reach it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRouteHarness, type RouteHarness } from "@/server/http/testing/route-harness.ts";
import * as uploads from "./route.ts";
import * as messages from "../messages/route.ts";
import * as message from "../messages/[messageId]/route.ts";
import * as artifact from "../artifacts/[artifactId]/route.ts";

let harness: RouteHarness;

beforeAll(async () => {
  harness = await createRouteHarness();
});

afterAll(async () => {
  await harness?.close();
});

async function upload(name: string, bytes = new Uint8Array([0, 1, 2, 0xff])): Promise<{ status: number; name?: string; id?: string }> {
  const form = new FormData();
  form.set("file", new Blob([bytes], { type: "application/octet-stream" }), name);
  const conversationId = harness.fixture.conversationId;
  const response = await uploads.POST(
    new Request(`http://baton.test/api/conversations/${conversationId}/uploads`, {
      method: "POST",
      headers: { cookie: harness.cookie },
      body: form,
    }),
    { params: Promise.resolve({ conversationId }) },
  );
  const body = (await response.json()) as { attachment?: { id: string } };
  if (!body.attachment) return { status: response.status };
  const row = await harness.fixture.db.prisma.artifact.findUniqueOrThrow({ where: { id: body.attachment.id } });
  return { status: response.status, name: row.name, id: row.id };
}

const request = (path: string, method: string, body?: unknown) =>
  new Request(`http://baton.test${path}`, {
    method,
    headers: { cookie: harness.cookie, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe("a deleted message's attachment", () => {
  it("is deleted with it: no longer downloadable, nor kept for agents to read by name", async () => {
    const conversationId = harness.fixture.conversationId;
    const file = await upload("secret-plan.txt", new TextEncoder().encode("the launch code is 0000"));
    const posted = await messages.POST(
      request(`/api/conversations/${conversationId}/messages`, "POST", { body: "", attachmentIds: [file.id] }),
      {
        params: Promise.resolve({ conversationId }),
      },
    );
    expect(posted.status).toBe(201);
    const messageId = ((await posted.json()) as { message: { id: string } }).message.id;
    const download = () =>
      artifact.GET(request(`/api/conversations/${conversationId}/artifacts/${file.id}`, "GET"), {
        params: Promise.resolve({ conversationId, artifactId: file.id! }),
      });
    expect((await download()).status).toBe(200);

    const deleted = await message.DELETE(request(`/api/conversations/${conversationId}/messages/${messageId}`, "DELETE"), {
      params: Promise.resolve({ conversationId, messageId }),
    });
    expect(deleted.status).toBe(200);
    expect((await download()).status).toBe(404);
    expect(await harness.fixture.db.prisma.artifact.findUnique({ where: { id: file.id } })).toBeNull();
  });
});

describe("uploaded file names", () => {
  it("lose bidirectional overrides, embeddings and isolates, so the extension shown is the real one", async () => {
    const stored = await upload("invoice\u202Efdp.exe");
    expect(stored.status).toBe(201);
    expect(stored.name).toBe("invoicefdp.exe");
    for (const control of ["\u202A", "\u202B", "\u202C", "\u202D", "\u2066", "\u2067", "\u2068", "\u2069"]) {
      expect((await upload(`a${control}b.txt`)).name).toBe("ab.txt");
    }
    // right-to-left text itself stays
    expect((await upload("تقرير.pdf")).name).toBe("تقرير.pdf");
  });

  it("are cut whole at their limit: emoji, ZWJ sequences and combining marks are not split", async () => {
    for (const unit of ["🎉", "👩‍👩‍👧‍👦", "e\u0301\u0301"]) {
      const stored = await upload(unit.repeat(1_000));
      expect(stored.status).toBe(201);
      expect(stored.name!.length).toBeLessThanOrEqual(200);
      expect(stored.name!.replaceAll(unit, "")).toBe("");
    }
  });
});
