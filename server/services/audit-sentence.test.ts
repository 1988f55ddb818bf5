import { describe, expect, it } from "vitest";
import { createTranslator } from "next-intl";
import en from "../../messages/en.json";
import zhCN from "../../messages/zh-CN.json";
import { auditSentence, renderAuditSentence, type AuditFallback } from "./audit-sentence.ts";
import { AUDIT_ACTIONS, type AuditEventDTO } from "../access/audit.ts";

const english = createTranslator({ locale: "en", messages: en, namespace: "admin.audit" });
const chinese = createTranslator({ locale: "zh-CN", messages: zhCN, namespace: "admin.audit" });
const inEnglish = (event: AuditEventDTO) => renderAuditSentence(auditSentence(event), english);
const inChinese = (event: AuditEventDTO) => renderAuditSentence(auditSentence(event), chinese);

const ana = { id: "u1", name: "Ana", email: "ana@example.test" };
const event = (over: Partial<AuditEventDTO>): AuditEventDTO => ({
  id: "1",
  at: "2026-01-01T00:00:00.000Z",
  actor: ana,
  actorKind: "user",
  action: "member.added",
  conversation: { id: "c1", title: "launch" },
  target: { kind: "user", id: "u2", label: "bo@example.test", name: "Bo" },
  detail: {},
  ...over,
});

/** The message at `path` ("sentence.member.added") in a catalogue's admin.audit, if any. */
function messageAt(catalogue: typeof en, path: string): unknown {
  return path.split(".").reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], catalogue.admin.audit);
}

describe("an audit event as a sentence", () => {
  it("names people and conversations, not ids", () => {
    expect(inEnglish(event({}))).toBe("Ana added Bo to “launch”.");
    expect(inEnglish(event({ action: "member.role_changed", detail: { from: "member", to: "owner" } }))).toBe(
      "Ana made Bo an owner of “launch” (was a member).",
    );
    expect(inEnglish(event({ action: "member.role_changed", detail: { to: "member" } }))).toBe("Ana made Bo a member of “launch”.");
    expect(inEnglish(event({ action: "invite.created", detail: { role: "admin" } }))).toBe("Ana created an invite link for an admin.");
    // the sentence e2e/08-admin.spec.ts looks for
    expect(inEnglish(event({ action: "invite.revoked", detail: { role: "member" } }))).toBe("Ana revoked an invite link for a member.");
  });

  it("says who acted through an API token, and Baton for the system", () => {
    expect(inEnglish(event({ actorKind: "token", action: "member.removed" }))).toBe("Ana (through an API token) removed Bo from “launch”.");
    expect(inEnglish(event({ actor: null, actorKind: "system", action: "member.left" }))).toBe("Baton left “launch”.");
  });

  it("reads agents by handle and a fast-forward by branch and commit", () => {
    const agent = { kind: "agent", id: "a1", label: "@writer", name: "Writer" };
    expect(inEnglish(event({ action: "agent.created", target: agent, detail: { handle: "writer" }, conversation: null }))).toBe(
      "Ana created the agent @writer.",
    );
    expect(inEnglish(event({ action: "agent.disabled", target: agent, detail: { handle: "writer" }, conversation: null }))).toBe(
      "Ana disabled the agent @writer.",
    );
    expect(inEnglish(event({ action: "agent.enabled", target: agent, detail: { handle: "writer" }, conversation: null }))).toBe(
      "Ana enabled the agent @writer again.",
    );
    // a deleted agent has no row to name it: the handle recorded with the event does
    const gone = { kind: "agent", id: "a1", label: null, name: null };
    expect(inEnglish(event({ action: "agent.deleted", target: gone, detail: { handle: "writer" }, conversation: null }))).toBe(
      "Ana deleted the agent @writer.",
    );
    const accepted = event({
      action: "plan.accepted",
      target: { kind: "repository", id: "r1", label: "site:main", name: null },
      detail: { name: "site:main", branch: "main", from: "aaaa", to: "0123456789abcdef" },
    });
    expect(inEnglish(accepted)).toBe("Ana accepted a plan's result: fast-forwarded site:main to 01234567 from “launch”.");
    expect(inEnglish({ ...accepted, detail: {}, conversation: null })).toBe(
      "Ana accepted a plan's result: fast-forwarded the base branch.",
    );
  });

  it("reads a member's recovery controls on a plan by its title and step, in both languages", () => {
    const plan = { kind: "plan", id: "p1", label: null, name: null };
    const stopped = event({ action: "plan.step_stopped", target: plan, detail: { title: "Shelf", stepIndex: 2 } });
    expect(inEnglish(stopped)).toBe("Ana stopped step 2 of the plan “Shelf” in “launch”.");
    expect(inChinese(stopped)).toBe("Ana 停止了“launch”中计划“Shelf”的步骤 2。");
    const whole = event({ action: "plan.stopped", target: plan, detail: { title: "Shelf" } });
    expect(inEnglish(whole)).toBe("Ana stopped the plan “Shelf” in “launch”.");
    expect(inChinese(whole)).toBe("Ana 停止了“launch”中的计划“Shelf”。");
    const reopened = event({ action: "plan.reopened", target: plan, detail: { title: "Shelf", stepIndex: 1 } });
    expect(inEnglish(reopened)).toBe("Ana reopened the ended plan “Shelf” in “launch” to retry step 1.");
    expect(inChinese(reopened)).toBe("Ana 重新打开了“launch”中已结束的计划“Shelf”，以重试步骤 1。");
    const rerun = event({ action: "plan.rerun", target: plan, detail: { title: "Shelf", rerunId: "p2" } });
    expect(inEnglish(rerun)).toBe("Ana re-ran the ended plan “Shelf” in “launch”.");
    expect(inChinese(rerun)).toBe("Ana 重新运行了“launch”中已结束的计划“Shelf”。");
    expect(inEnglish({ ...stopped, detail: {} })).toBe("Ana stopped a step of the plan “unnamed” in “launch”.");
  });

  it("reads in Chinese for a Chinese reader, with Chinese quotation marks and roles", () => {
    expect(inChinese(event({}))).toBe("Ana 将 Bo 加入了“launch”。");
    expect(inChinese(event({ action: "member.role_changed", detail: { from: "member", to: "owner" } }))).toBe(
      "Ana 将 Bo 设为“launch”的所有者（原为成员）。",
    );
    expect(inChinese(event({ actorKind: "token", action: "invite.revoked", detail: { role: "member" } }))).toBe(
      "Ana（通过 API 令牌） 撤销了一个成员邀请链接。",
    );
    expect(inChinese(event({ action: "token.created", detail: {} }))).toBe("Ana 创建了 API 令牌“未命名”。");
  });

  it("has a message for every action in both languages", () => {
    const fallbacks: AuditFallback[] = ["someone", "anAgent", "aConversation", "unnamed", "baseBranch"];
    for (const catalogue of [en, zhCN]) {
      for (const action of AUDIT_ACTIONS) expect(typeof messageAt(catalogue, `sentence.${action}`), action).toBe("string");
      for (const fallback of fallbacks) expect(typeof messageAt(catalogue, `fallback.${fallback}`), fallback).toBe("string");
    }
  });

  it("has a sentence for every action in each language, none of them leaking an id or English into Chinese", () => {
    const detail = { email: "cy@example.test", role: "member", name: "ci", handle: "writer", from: "old", to: "new", title: "t" };
    for (const action of AUDIT_ACTIONS) {
      const sample = event({ action, detail });
      const sentences = { en: inEnglish(sample), zh: inChinese(sample) };
      expect(sentences.en, action).toMatch(/^[A-Z@“].*\.$/);
      expect(sentences.zh, action).toMatch(/^[A-Z@“].*。$/);
      for (const sentence of Object.values(sentences)) expect(sentence, action).not.toMatch(/u2|c1|undefined|null|\[object|\{/);
      // what is left of the Chinese once names, handles and emails are taken out is Chinese
      const words = sentences.zh.replace(/Ana|Bo|Baton|@writer|cy@example\.test|launch|site|ci|old|new|\bt\b|API|\d+/g, "");
      expect(words, action).not.toMatch(/[A-Za-z]/);
    }
  });

  it("words the record's gaps in the reader's language", () => {
    const nobody = event({ action: "invitation.created", conversation: null, detail: {} });
    expect(inEnglish(nobody)).toBe("Ana invited someone to a conversation.");
    expect(inChinese(nobody)).toBe("Ana 邀请 某人 加入某个对话。");
  });

  it("still reads an action this version does not know", () => {
    expect(inEnglish(event({ action: "repository.added" }))).toBe("Ana: repository.added");
    expect(inChinese(event({ action: "repository.added" }))).toBe("Ana：repository.added");
  });
});
