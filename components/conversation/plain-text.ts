/**
 * Markdown read as one line of plain text, for places too small to render it (a plan
 * node's summary): "## Synthesis\n\n**Go** wins" reads "Synthesis Go wins". Pure.
 */
import { fromMarkdown } from "mdast-util-from-markdown";

interface MarkdownNode {
  type: string;
  value?: string;
  alt?: string | null;
  children?: MarkdownNode[];
}

/** Text inside one node; blocks (paragraphs, headings, list items) are kept apart by a space. */
function textOf(node: MarkdownNode): string {
  if (node.type === "text" || node.type === "inlineCode" || node.type === "code") return node.value ?? "";
  if (node.type === "image") return node.alt ?? "";
  if (node.type === "break" || node.type === "thematicBreak") return " ";
  // raw HTML is shown as typed elsewhere (markdown-plugins.ts); here it stays text too
  if (node.type === "html") return node.value ?? "";
  const parts = (node.children ?? []).map(textOf);
  const phrasing = node.type === "paragraph" || node.type === "heading" || node.type === "emphasis" || node.type === "strong";
  const joined = phrasing || node.type === "link" || node.type === "delete" ? parts.join("") : parts.join(" ");
  return joined;
}

export function plainText(markdown: string): string {
  return textOf(fromMarkdown(markdown)).replace(/\s+/g, " ").trim();
}
