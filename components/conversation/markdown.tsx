"use client";
/**
 * Message bodies are markdown from people and models alike. Raw HTML is shown as the
 * text it is (markdown-plugins.ts), never parsed or run, and rehype-sanitize still strips
 * anything outside a safe whitelist; links open safely. Every newline is a line break,
 * and code blocks carry a copy button.
 */
import { memo } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import rehypeHighlight from "rehype-highlight";
import rehypeSanitize from "rehype-sanitize";
import remarkBreaks from "remark-breaks";
import remarkGfm from "remark-gfm";
import { useTranslations } from "next-intl";
import { CopyButton } from "./copy-button.tsx";
import { codeText, remarkRawHtmlAsText } from "./markdown-plugins.ts";

interface HastNode {
  type: string;
  value?: string;
  tagName?: string;
  properties?: Record<string, unknown>;
  children?: HastNode[];
}

/** Wraps `@handle` text of the message's structured mentions (never of arbitrary @words). */
function rehypeMentions(handles: string[]) {
  const pattern = handles.length ? new RegExp(`(^|[^\\w@])(@(?:${handles.map(escape).join("|")}))(?![\\w-])`, "g") : null;
  const walk = (node: HastNode) => {
    if (!pattern || !node.children || node.tagName === "code" || node.tagName === "pre") return;
    node.children = node.children.flatMap((child) => {
      if (child.type !== "text" || !child.value) {
        walk(child);
        return [child];
      }
      const parts: HastNode[] = [];
      let last = 0;
      for (const match of child.value.matchAll(pattern)) {
        const start = (match.index ?? 0) + match[1].length;
        if (start > last) parts.push({ type: "text", value: child.value.slice(last, start) });
        parts.push({
          type: "element",
          tagName: "span",
          properties: { className: ["mention"] },
          children: [{ type: "text", value: match[2] }],
        });
        last = start + match[2].length;
      }
      if (last === 0) return [child];
      if (last < child.value.length) parts.push({ type: "text", value: child.value.slice(last) });
      return parts;
    });
  };
  return () => (tree: HastNode) => walk(tree);
}

function escape(text: string) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function CodeCopyButton(props: { text: () => string; className: string }) {
  const t = useTranslations("copy");
  return <CopyButton label={t("code")} {...props} />;
}

const components: Components = {
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noopener noreferrer nofollow">
      {children}
    </a>
  ),
  img: ({ src, alt }) =>
    typeof src === "string" && src.startsWith("/api/") ? (
      <img src={src} alt={alt ?? ""} className="max-h-64 rounded" />
    ) : (
      <span>[image: {alt}]</span>
    ),
  pre: ({ node, children }) => (
    <div className="group/code relative" data-testid="code-block">
      <pre>{children}</pre>
      <CodeCopyButton
        text={() => codeText(node)}
        className="absolute top-1 right-1 bg-white/80 opacity-70 group-hover/code:opacity-100 dark:bg-zinc-900/80"
      />
    </div>
  ),
};

export const Markdown = memo(function Markdown({ text, mentions = [] }: { text: string; mentions?: string[] }) {
  return (
    <div className="prose-chat text-sm">
      <ReactMarkdown
        remarkPlugins={[remarkGfm, remarkRawHtmlAsText, remarkBreaks]}
        rehypePlugins={[rehypeSanitize, [rehypeHighlight, { detect: false, ignoreMissing: true }], rehypeMentions(mentions)]}
        components={components}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
});
