"use client";
/**
 * Search over the messages of your conversations: a button in the sidebar and
 * Ctrl/Cmd+K anywhere. Results show the matched words highlighted (segments of plain
 * text from the server, rendered as text) and open the conversation at the message.
 */
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState, type KeyboardEvent } from "react";
import { useFormatter, useTranslations } from "next-intl";
import type { SearchResultDTO } from "@/server/protocol/rest/search.ts";
import { api } from "./api-client.ts";
import { Dialog } from "./ui/dialog.tsx";
import { browserTimeZone } from "./time-zone.ts";

const DEBOUNCE_MS = 200;

export function messageHref(result: Pick<SearchResultDTO, "conversationId" | "messageId">): string {
  return `/c/${result.conversationId}#message-${result.messageId}`;
}

function SearchPanel({ onOpen }: { onOpen: (result: SearchResultDTO) => void }) {
  const t = useTranslations("search");
  const format = useFormatter();
  const [query, setQuery] = useState("");
  const [results, setResults] = useState<SearchResultDTO[] | null>(null);
  const [error, setError] = useState("");
  const [active, setActive] = useState(0);
  const latest = useRef(0);

  useEffect(() => {
    const text = query.trim();
    const ticket = ++latest.current;
    const timer = setTimeout(() => {
      if (!text) {
        setResults(null);
        setError("");
        return;
      }
      api.search
        .messages({ q: text })
        .then(({ results: found }) => {
          if (ticket !== latest.current) return;
          setResults(found);
          setError("");
          setActive(0);
        })
        .catch((caught: unknown) => {
          if (ticket === latest.current) setError(caught instanceof Error ? caught.message : t("failed"));
        });
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [query, t]);

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (!results?.length) return;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActive((index) => (index + step + results.length) % results.length);
    } else if (event.key === "Enter") {
      event.preventDefault();
      onOpen(results[active]);
    }
  }

  return (
    <div className="flex flex-col gap-3">
      <input
        autoFocus
        type="search"
        value={query}
        onChange={(event) => setQuery(event.target.value)}
        onKeyDown={onKeyDown}
        maxLength={200}
        placeholder={t("placeholder")}
        aria-label={t("title")}
        aria-controls="search-results"
        className="h-10 rounded-md border border-zinc-300 bg-white px-3 text-sm focus:border-accent focus:outline-none focus:ring-2 focus:ring-accent/30 dark:border-zinc-700 dark:bg-zinc-900"
      />
      {error ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          {error}
        </p>
      ) : null}
      {results && results.length === 0 ? <p className="text-sm text-zinc-600 dark:text-zinc-400">{t("noMatch")}</p> : null}
      {results && results.length > 0 ? (
        <ul id="search-results" aria-label={t("results")} className="max-h-[60vh] space-y-1 overflow-y-auto" data-testid="search-results">
          {results.map((result, index) => (
            <li key={result.messageId}>
              <a
                href={messageHref(result)}
                onClick={(event) => {
                  event.preventDefault();
                  onOpen(result);
                }}
                data-testid="search-result"
                className={`block rounded-md px-3 py-2 text-sm hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-accent dark:hover:bg-zinc-800 ${index === active ? "bg-zinc-100 dark:bg-zinc-800" : ""}`}
              >
                <span className="flex items-baseline justify-between gap-2 text-xs text-zinc-600 dark:text-zinc-400">
                  <span className="truncate font-medium">
                    {result.conversationTitle} · {result.author}
                  </span>
                  <time dateTime={result.createdAt} suppressHydrationWarning>
                    {format.dateTime(new Date(result.createdAt), { dateStyle: "medium", timeZone: browserTimeZone() })}
                  </time>
                </span>
                <span className="mt-0.5 block break-words">
                  {result.snippet.map((segment, at) =>
                    segment.hit ? (
                      <mark key={at} className="rounded bg-amber-200 px-0.5 text-zinc-900 dark:bg-amber-500/40 dark:text-zinc-50">
                        {segment.text}
                      </mark>
                    ) : (
                      <span key={at}>{segment.text}</span>
                    ),
                  )}
                </span>
              </a>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** The sidebar's search entry; Ctrl/Cmd+K opens it from anywhere. */
export function SearchButton() {
  const [open, setOpen] = useState(false);
  const router = useRouter();
  const t = useTranslations("search");

  useEffect(() => {
    const onKey = (event: globalThis.KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "k") {
        event.preventDefault();
        setOpen(true);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  function openResult(result: SearchResultDTO) {
    setOpen(false);
    const href = messageHref(result);
    if (window.location.pathname === `/c/${result.conversationId}`) {
      // same conversation: only the hash changes, which the router does not announce
      window.history.pushState(null, "", href);
      window.dispatchEvent(new HashChangeEvent("hashchange"));
    } else router.push(href);
  }

  return (
    <>
      <button
        type="button"
        onClick={() => setOpen(true)}
        aria-keyshortcuts="Control+K Meta+K"
        className="mt-2 flex h-9 w-full items-center justify-between rounded-md border border-zinc-300 px-3 text-sm text-zinc-600 hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-accent dark:border-zinc-700 dark:text-zinc-300 dark:hover:bg-zinc-800"
      >
        <span>{t("title")}</span>
        <kbd className="text-xs text-zinc-500">Ctrl K</kbd>
      </button>
      <Dialog open={open} onClose={() => setOpen(false)} title={t("title")}>
        <SearchPanel onOpen={openResult} />
      </Dialog>
    </>
  );
}
