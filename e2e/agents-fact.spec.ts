import { expect, test } from "@playwright/test";
import { startFakeModelServer, type FakeModelServer } from "../server/agents/testing/fake-model-server.ts";
import { ConversationPage } from "./pages/conversation-page.ts";
import { adminContext } from "./support/accounts.ts";

let server: FakeModelServer;
test.beforeAll(async () => {
  // the app's `local:` models (OpenAI-compatible) are pointed at this port (playwright.config.ts)
  server = await startFakeModelServer({ port: Number(process.env.BATON_E2E_FAKE_MODEL_PORT) });
});
test.afterAll(() => server?.close());

test("an agent mentioned by its typed handle answers from a request that holds what a person said before", async ({ browser }) => {
  const { context, page } = await adminContext(browser);
  const handle = `scout${Date.now().toString(36)}`;

  const view = new ConversationPage(page);
  const conversationId = await view.create("What the team said");
  // an agent made after the conversation: not in it until someone adds it
  const created = await context.request.post("/api/admin/agents", {
    data: {
      handle,
      name: "Scout",
      role: "sub_agent",
      systemPrompt: "You answer questions about the team's infrastructure.",
      model: "local:e2e-model",
      allowedTools: [],
      skills: [],
      concurrency: 1,
    },
  });
  expect(created.status()).toBe(201);
  // the commander stays out of it: only the mentioned agent answers
  expect(
    (await context.request.patch(`/api/conversations/${conversationId}`, { data: { commanderReplies: "when_addressed" } })).status(),
  ).toBe(200);
  await view.open(conversationId);

  await view.send("Fact: our staging database is called heron-7.");
  // typed in full while the agent is not in the conversation: nobody is asked, and the composer offers to add it
  await view.send(`@${handle} are you there?`);
  const offer = page.getByRole("status", { name: "Agents not in this conversation" });
  await expect(offer).toContainText(`@${handle} is not in this conversation, so nobody was asked.`);
  await offer.getByRole("button", { name: `Add @${handle} to this conversation` }).click();
  await expect(offer).toContainText(`@${handle} was added`);
  expect(server.requests).toHaveLength(0);

  server.script({ kind: "text", text: "Staging runs on the heron-7 database." });
  await view.composer.click();
  await view.composer.pressSequentially(`@${handle} which database does staging use?`);
  await view.composer.press("Enter");

  const reply = page.locator(`[data-testid="message"][data-author="${handle}"]`);
  await expect(reply)
    .toContainText("Staging runs on the heron-7 database.", { timeout: 30_000 })
    .catch(async (error: unknown) => {
      // say what the conversation and the model server saw instead, so a failure names its cause
      const shown = await page
        .getByTestId("message")
        .evaluateAll((nodes) => nodes.map((node) => `${node.getAttribute("data-author")}: ${node.textContent?.slice(0, 160)}`));
      throw new Error(`${String(error)}\nmessages:\n${shown.join("\n")}\nmodel requests: ${server.requests.length}`);
    });
  expect(server.requests).toHaveLength(1);
  const [request] = server.requests;
  expect(request.format).toBe("openai");
  const messages = JSON.stringify(request.body.messages);
  expect(messages).toContain("Fact: our staging database is called heron-7.");
  expect(messages).toContain("which database does staging use?");
  // what it cost is shown with the conversation (the fake server reports 100 in, 20 out)
  await expect(page.getByTestId("conversation-usage")).toContainText("120 tokens");
  await context.close();
});
