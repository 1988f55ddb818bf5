"use client";
import { useState } from "react";
import { useTranslations } from "next-intl";
import type { AttachmentDTO } from "@/server/protocol/dto.ts";
import { apiPath, routes } from "../api-client.ts";
import { FileIcon } from "../ui/icons.tsx";

const IMAGE = /^image\/(png|jpeg|gif|webp)$/;
const TEXT = /^(text\/|application\/(json|xml|x-yaml|yaml|csv))/;
const PREVIEW_LIMIT = 20_000;

function formatSize(bytes: number) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export function AttachmentList({ conversationId, attachments }: { conversationId: string; attachments: AttachmentDTO[] }) {
  const t = useTranslations("attachments");
  if (attachments.length === 0) return null;
  return (
    <ul className="mt-2 flex flex-col gap-2" aria-label={t("label")}>
      {attachments.map((attachment) => (
        <Attachment key={attachment.id} conversationId={conversationId} attachment={attachment} />
      ))}
    </ul>
  );
}

function Attachment({ conversationId, attachment }: { conversationId: string; attachment: AttachmentDTO }) {
  const url = apiPath(routes.conversations.artifact, { conversationId, artifactId: attachment.id });
  const t = useTranslations("attachments");
  const [text, setText] = useState<string | null>(null);
  const previewText = async () => {
    if (text !== null) return setText(null);
    const response = await fetch(url, { credentials: "same-origin" });
    const body = await response.text();
    setText(body.length > PREVIEW_LIMIT ? `${body.slice(0, PREVIEW_LIMIT)}\n…` : body);
  };
  return (
    <li className="max-w-md rounded-lg border border-zinc-200 p-2 text-sm dark:border-zinc-700">
      {IMAGE.test(attachment.mediaType) ? <img src={url} alt={attachment.name} className="mb-2 max-h-56 rounded" loading="lazy" /> : null}
      <div className="flex items-center gap-2">
        <FileIcon size={14} />
        <span className="min-w-0 flex-1 truncate font-medium">{attachment.name}</span>
        <span className="text-xs text-zinc-500">{formatSize(attachment.size)}</span>
        {TEXT.test(attachment.mediaType) ? (
          <button type="button" onClick={previewText} className="text-xs text-accent underline">
            {text === null ? t("preview") : t("hide")}
          </button>
        ) : null}
        <a href={`${url}?download=1`} className="text-xs text-accent underline" download={attachment.name}>
          Download
        </a>
      </div>
      {text !== null ? (
        <pre className="mt-2 max-h-64 overflow-auto whitespace-pre-wrap rounded bg-zinc-100 p-2 text-xs dark:bg-zinc-800">{text}</pre>
      ) : null}
    </li>
  );
}
