/**
 * How a notice (server/protocol/notices.ts: the server's own words as data) is laid out,
 * apart from the words: the agent's own text it follows, then one paragraph per line,
 * each with its bulleted items. A line's `list` is joined into its `{list}` argument by
 * the catalogue's own joiners (`notices.join.*`: "a, b and c", "a、b和c"). Pure, so the
 * message component and the catalogue test (i18n/notices.test.ts) lay it out the same way.
 */
import type { StoredNotice } from "@/server/protocol/notices.ts";

type Item = { key: string; values: Record<string, string | number> };

export interface NoticeWording<T> {
  /** a line's words; `list` is its joined list, when it has one */
  line(item: Item, list: string | undefined): T;
  /** a list item's or a bullet's words, as plain text */
  item(item: Item): string;
  /** two parts of a list joined: `and` before the last of several, `comma` otherwise */
  join(how: "comma" | "and", first: string, next: string): string;
}

export interface NoticeLayout<T> {
  /** markdown an agent wrote, shown as written before the notice's own lines */
  said: string | null;
  paragraphs: { text: T; bullets: string[] }[];
}

function joined(list: NonNullable<StoredNotice["list"]>, wording: NoticeWording<unknown>): string {
  const words = list.items.map((item) => wording.item(item));
  if (words.length === 0) return "";
  const last = words.length - 1;
  return words
    .slice(1)
    .reduce((sum, word, index) => wording.join(list.join === "and" && index + 1 === last ? "and" : "comma", sum, word), words[0]);
}

export function layoutNotice<T>(notice: StoredNotice, wording: NoticeWording<T>): NoticeLayout<T> {
  return {
    said: notice.said ?? null,
    paragraphs: [notice, ...(notice.more ?? [])].map((line) => ({
      text: wording.line(line, line.list ? joined(line.list, wording) : undefined),
      bullets: (line.bullets ?? []).map((bullet) => wording.item(bullet)),
    })),
  };
}
