/**
 * A trace as an indented tree, for tests and for reading a trace without a backend:
 * each span with the attributes that say what it is, and its links (`wait_for` edges,
 * the lost run a run takes over).
 */
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";

function describe(span: ReadableSpan): string {
  const a = (key: string) => String(span.attributes[key] ?? "");
  const parts: string[] = [span.name];
  if (span.name === "plan") parts.push(`"${a("baton.plan.title")}"`, a("baton.plan.status"));
  if (span.name === "step")
    parts.push(`${a("baton.step.index")} "${a("baton.step.title")}" @${a("baton.step.assignee")}`, a("baton.step.status"));
  if (span.name === "run") parts.push(`@${a("baton.agent")} attempt ${a("baton.run.attempt")}`, a("baton.run.outcome"));
  if (span.attributes["ai.toolCall.name"] !== undefined) parts.push(a("ai.toolCall.name"));
  for (const link of span.links) {
    const l = link.attributes ?? {};
    if (l["baton.link"] === "wait_for") parts.push(`⇠ waits for step ${String(l["baton.step.index"])}`);
    else if (l["baton.link"] === "takes-over")
      parts.push(`⇠ takes over run ${String(l["baton.run.id"]).slice(0, 8)} (span ${link.context.spanId})`);
    else parts.push(`⇠ link ${link.context.spanId}`);
  }
  return parts.join("  ");
}

/** The spans as trees (one per root), children in start order, one line each. */
export function formatSpanTree(spans: readonly ReadableSpan[]): string {
  const ids = new Set(spans.map((span) => span.spanContext().spanId));
  const children = new Map<string, ReadableSpan[]>();
  const roots: ReadableSpan[] = [];
  for (const span of spans) {
    const parent = span.parentSpanContext?.spanId;
    if (parent && ids.has(parent)) children.set(parent, [...(children.get(parent) ?? []), span]);
    else roots.push(span);
  }
  const order = (list: ReadableSpan[]) =>
    [...list].sort((x, y) => {
      const byStep = Number(x.attributes["baton.step.index"] ?? 0) - Number(y.attributes["baton.step.index"] ?? 0);
      if (x.name === "step" && y.name === "step" && byStep !== 0) return byStep;
      return x.startTime[0] - y.startTime[0] || x.startTime[1] - y.startTime[1];
    });
  const lines: string[] = [];
  const walk = (span: ReadableSpan, prefix: string, last: boolean, root: boolean) => {
    lines.push(root ? describe(span) : `${prefix}${last ? "└─ " : "├─ "}${describe(span)}`);
    const kids = order(children.get(span.spanContext().spanId) ?? []);
    const next = root ? "" : `${prefix}${last ? "   " : "│  "}`;
    kids.forEach((kid, i) => walk(kid, next, i === kids.length - 1, false));
  };
  for (const root of order(roots)) {
    if (root.parentSpanContext) lines.push(`(parent ${root.parentSpanContext.spanId} not in this set)`);
    walk(root, "", true, true);
  }
  return lines.join("\n");
}
