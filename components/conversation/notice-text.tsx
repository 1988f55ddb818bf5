"use client";
/**
 * A message the server wrote (a plan's closing message, "nothing to add", "@x is
 * disabled"…), worded in the reader's language from its notice (`notices.*`) instead of
 * its English body. Values (titles, names, reasons) go in as text, never as markup; the
 * catalogue's own <b> and <i> are the only formatting. A notice this browser does not
 * know every key of (a newer server's) shows the body, as does a message without one.
 */
import { useTranslations } from "next-intl";
import type { ReactNode } from "react";
import type { MessageDTO } from "@/server/protocol/dto.ts";
import { isNoticeKey, noticeKeys, type NoticeKey, type StoredNotice } from "@/server/protocol/notices.ts";
import { Markdown } from "./markdown.tsx";
import { layoutNotice } from "./notice-layout.ts";

const TAGS = {
  b: (chunks: ReactNode) => <strong>{chunks}</strong>,
  i: (chunks: ReactNode) => <em>{chunks}</em>,
};

/** The notice, when this browser has words for all of it. */
export function knownNotice(message: Pick<MessageDTO, "notice">): StoredNotice | null {
  // events stored before notices existed carry none at all
  const notice = message.notice ?? null;
  return notice !== null && noticeKeys(notice).every(isNoticeKey) ? notice : null;
}

function NoticeText({ notice, mentions }: { notice: StoredNotice; mentions: string[] }) {
  const t = useTranslations("notices");
  // every key was checked by knownNotice
  const key = (raw: string) => raw as NoticeKey;
  const layout = layoutNotice<ReactNode>(notice, {
    line: (item, list) => t.rich(key(item.key), { ...item.values, ...(list === undefined ? {} : { list }), ...TAGS }),
    item: (item) => t(key(item.key), item.values),
    join: (how, first, next) => (how === "and" ? t("join.and", { first, last: next }) : t("join.comma", { first, next })),
  });
  return (
    <div data-testid="notice" data-notice={notice.key}>
      {layout.said !== null ? <Markdown text={layout.said} mentions={mentions} /> : null}
      <div className="prose-chat text-sm">
        {layout.paragraphs.map((paragraph, index) => (
          <div key={index}>
            <p>{paragraph.text}</p>
            {paragraph.bullets.length > 0 ? (
              <ul>
                {paragraph.bullets.map((bullet, at) => (
                  <li key={at}>{bullet}</li>
                ))}
              </ul>
            ) : null}
          </div>
        ))}
      </div>
    </div>
  );
}

/** A message's text: its notice in the reader's language, else its body as markdown. */
export function MessageText({ message }: { message: MessageDTO }) {
  const mentions = message.mentions.map((mention) => mention.handle);
  const notice = knownNotice(message);
  return notice ? <NoticeText notice={notice} mentions={mentions} /> : <Markdown text={message.body} mentions={mentions} />;
}
