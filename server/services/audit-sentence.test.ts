import { describe, expect, it } from "vitest";
import { auditSentence } from "./audit-sentence.ts";
import { AUDIT_ACTIONS, type AuditEventDTO } from "../access/audit.ts";

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

describe("an audit event as a sentence", () => {
  it("names people and conversations, not ids", () => {
    expect(auditSentence(event({}))).toBe("Ana added Bo to “launch”.");
    expect(auditSentence(event({ action: "member.role_changed", detail: { from: "member", to: "owner" } }))).toBe(
      "Ana made Bo an owner of “launch” (was a member).",
    );
  });

  it("says who acted through an API token, and Baton for the system", () => {
    expect(auditSentence(event({ actorKind: "token", action: "member.removed" }))).toBe(
      "Ana (through an API token) removed Bo from “launch”.",
    );
    expect(auditSentence(event({ actor: null, actorKind: "system", action: "member.left" }))).toBe("Baton left “launch”.");
  });

  it("reads agents by handle and a fast-forward by branch and commit", () => {
    const agent = { kind: "agent", id: "a1", label: "@writer", name: "Writer" };
    expect(auditSentence(event({ action: "agent.created", target: agent, detail: { handle: "writer" }, conversation: null }))).toBe(
      "Ana created the agent @writer.",
    );
    expect(auditSentence(event({ action: "agent.disabled", target: agent, detail: { handle: "writer" }, conversation: null }))).toBe(
      "Ana disabled the agent @writer.",
    );
    expect(auditSentence(event({ action: "agent.enabled", target: agent, detail: { handle: "writer" }, conversation: null }))).toBe(
      "Ana enabled the agent @writer again.",
    );
    // a deleted agent has no row to name it: the handle recorded with the event does
    const gone = { kind: "agent", id: "a1", label: null, name: null };
    expect(auditSentence(event({ action: "agent.deleted", target: gone, detail: { handle: "writer" }, conversation: null }))).toBe(
      "Ana deleted the agent @writer.",
    );
    expect(
      auditSentence(
        event({
          action: "plan.accepted",
          target: { kind: "repository", id: "r1", label: "site:main", name: null },
          detail: { name: "site:main", branch: "main", from: "aaaa", to: "0123456789abcdef" },
        }),
      ),
    ).toBe("Ana accepted a plan's result: fast-forwarded site:main to 01234567 from “launch”.");
  });

  it("reads a member's recovery controls on a plan by its title and step", () => {
    const plan = { kind: "plan", id: "p1", label: null, name: null };
    expect(auditSentence(event({ action: "plan.step_stopped", target: plan, detail: { title: "Shelf", stepIndex: 2 } }))).toBe(
      "Ana stopped step 2 of the plan “Shelf” in “launch”.",
    );
    expect(auditSentence(event({ action: "plan.reopened", target: plan, detail: { title: "Shelf", stepIndex: 1 } }))).toBe(
      "Ana reopened the ended plan “Shelf” in “launch” to retry step 1.",
    );
    expect(auditSentence(event({ action: "plan.rerun", target: plan, detail: { title: "Shelf", rerunId: "p2" } }))).toBe(
      "Ana re-ran the ended plan “Shelf” in “launch”.",
    );
  });

  it("has a sentence for every action, none of them leaking an id", () => {
    for (const action of AUDIT_ACTIONS) {
      const sentence = auditSentence(event({ action, detail: { email: "cy@example.test", role: "member", name: "ci", handle: "writer" } }));
      expect(sentence).toMatch(/^[A-Z@“].*\.$/);
      expect(sentence).not.toMatch(/u2|c1|undefined|null|\[object/);
    }
  });

  it("still reads an action this version does not know", () => {
    expect(auditSentence(event({ action: "repository.added" }))).toBe("Ana: repository.added");
  });
});
