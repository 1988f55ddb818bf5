/**
 * How message markdown treats what people type, as plugins of its own (pure, tested in
 * markdown.test.ts):
 *
 * - Raw HTML is text. `Use a <div> wrapper` shows "<div>", and a bare `<img>` line
 *   (which markdown would open an HTML block with, swallowing the lines after it) shows
 *   as typed with the lines after it. Nothing is ever parsed as markup, let alone run.
 * - Every newline is a line break (remark-breaks), as in any chat.
 */

interface MdastNode {
  type: string;
  value?: string;
  children?: MdastNode[];
}

const PHRASING_PARENTS = new Set(["paragraph", "heading", "emphasis", "strong", "delete", "link", "linkReference", "tableCell"]);

/** remark plugin: `html` nodes become text (inside a paragraph where they stood as a block). */
export function remarkRawHtmlAsText() {
  const walk = (node: MdastNode) => {
    if (!node.children) return;
    const phrasing = PHRASING_PARENTS.has(node.type);
    node.children = node.children.map((child) => {
      if (child.type !== "html") {
        walk(child);
        return child;
      }
      const text: MdastNode = { type: "text", value: child.value ?? "" };
      return phrasing ? text : { type: "paragraph", children: [text] };
    });
  };
  return (tree: MdastNode) => walk(tree);
}

/** The text a code block's copy button copies: the code as written, without the fence. */
export function codeText(node: { children?: { type: string; value?: string; children?: unknown[] }[] } | undefined): string {
  let text = "";
  const walk = (current: { type: string; value?: string; children?: unknown[] }) => {
    if (current.type === "text") text += current.value ?? "";
    for (const child of (current.children ?? []) as { type: string; value?: string; children?: unknown[] }[]) walk(child);
  };
  for (const child of node?.children ?? []) walk(child);
  return text.replace(/\n$/, "");
}
