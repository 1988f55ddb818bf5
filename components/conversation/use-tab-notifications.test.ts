import { describe, expect, it } from "vitest";
import type { MessageDTO } from "@/server/protocol/dto.ts";
import { answersMention, tabTitle } from "./use-tab-notifications.ts";

const base: MessageDTO = {
  id: "m",
  conversationId: "c",
  authorKind: "user",
  author: { id: "u1", name: "Ada" },
  kind: "text",
  body: "",
  notice: null,
  mentions: [],
  planId: null,
  stepId: null,
  runId: null,
  formId: null,
  attachments: [],
  createdAt: "2026-01-01T00:00:00.000Z",
  editedAt: null,
  deletedAt: null,
  reactions: [],
};
const agent = (handle: string, at: string): MessageDTO => ({
  ...base,
  id: `a-${handle}-${at}`,
  authorKind: "agent",
  author: { id: handle, name: handle, handle, role: "sub_agent" },
  createdAt: at,
});

describe("tab title", () => {
  it("counts unread messages and says when forms wait", () => {
    expect(tabTitle({ base: "Baton", unread: 0, formsWaiting: 0 })).toBe("Baton");
    expect(tabTitle({ base: "Baton", unread: 3, formsWaiting: 0 })).toBe("(3) Baton");
    expect(tabTitle({ base: "Baton", unread: 0, formsWaiting: 1 })).toBe("Form waiting · Baton");
    expect(tabTitle({ base: "Baton", unread: 2, formsWaiting: 2 })).toBe("(2) 2 forms waiting · Baton");
  });
});

describe("an agent answering your mention", () => {
  const mine = { ...base, id: "mine", mentions: [{ agentId: "r", handle: "researcher" }], createdAt: "2026-01-01T00:00:01.000Z" };
  const theirs = { ...mine, id: "theirs", author: { id: "u2", name: "Bo" } };
  it("is an answer from the agent you mentioned, after you mentioned it", () => {
    const answer = agent("researcher", "2026-01-01T00:00:02.000Z");
    expect(answersMention(answer, [mine, answer], "u1")).toBe(true);
    expect(answersMention(answer, [theirs, answer], "u1")).toBe(false);
    expect(answersMention(agent("writer", "2026-01-01T00:00:02.000Z"), [mine], "u1")).toBe(false);
    expect(answersMention(agent("researcher", "2026-01-01T00:00:00.500Z"), [mine], "u1")).toBe(false);
    expect(answersMention(answer, [{ ...mine, deletedAt: "2026-01-01T00:00:01.500Z" }, answer], "u1")).toBe(false);
  });

  it("is not a form the agent asks you to fill in", () => {
    const question = { ...agent("commander", "2026-01-01T00:00:02.000Z"), kind: "form" as const, formId: "f1" };
    const asked = { ...mine, mentions: [{ agentId: "c", handle: "commander" }] };
    expect(answersMention(question, [asked, question], "u1")).toBe(false);
    expect(answersMention({ ...question, kind: "text", formId: null }, [asked, question], "u1")).toBe(true);
  });
});
