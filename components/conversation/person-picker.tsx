"use client";
/**
 * The members dialog's "add a person" field: type part of a name or email, pick from the
 * workspace's people with the arrow keys and Enter (or a click). A picked person fills the
 * field with their email; an email nobody has yet can still be typed in full and invited.
 * An ARIA combobox with a listbox popup; the options come from the server, debounced.
 */
import { useEffect, useId, useState, type KeyboardEvent } from "react";
import { useTranslations } from "next-intl";
import type { PersonChoice } from "@/server/protocol/rest/members.ts";
import { api } from "../api-client.ts";
import { inputClass } from "../ui/field.tsx";

const SEARCH_DELAY_MS = 150;

export function PersonPicker({ conversationId }: { conversationId: string }) {
  const t = useTranslations("people");
  const id = useId();
  const [text, setText] = useState("");
  const [people, setPeople] = useState<PersonChoice[]>([]);
  const [active, setActive] = useState(-1);
  const [open, setOpen] = useState(false);

  useEffect(() => {
    const query = text.trim();
    const timer = window.setTimeout(
      () => {
        if (!query) return setPeople([]);
        api.members
          .people({ conversationId }, { q: query })
          .then((answer) => {
            setPeople(answer.people);
            // nothing highlighted until the arrows move: Enter alone still sends what was typed
            setActive(-1);
          })
          .catch(() => setPeople([]));
      },
      query ? SEARCH_DELAY_MS : 0,
    );
    return () => window.clearTimeout(timer);
  }, [text, conversationId]);

  const pick = (person: PersonChoice) => {
    if (person.member) return;
    // the field now holds their email: Enter (or Invite) sends the invitation
    setText(person.email);
    setOpen(false);
  };

  const move = (step: number) => {
    const offered = people.map((person, index) => (person.member ? -1 : index)).filter((index) => index >= 0);
    if (offered.length === 0) return;
    const at = offered.indexOf(active);
    const next = at === -1 ? (step > 0 ? 0 : offered.length - 1) : (at + step + offered.length) % offered.length;
    setActive(offered[next]);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    const showing = open && people.length > 0;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      setOpen(true);
      move(event.key === "ArrowDown" ? 1 : -1);
    } else if (event.key === "Enter" && showing && active >= 0) {
      // Enter on a highlighted person picks them; otherwise it submits what was typed
      event.preventDefault();
      pick(people[active]);
    } else if (event.key === "Escape" && showing) {
      event.preventDefault();
      event.stopPropagation();
      setOpen(false);
    }
  };

  const listId = `${id}-people`;
  const showing = open && people.length > 0;
  return (
    <div className="relative flex flex-col gap-1">
      <label htmlFor={id} className="text-sm font-medium">
        {t("label")}
      </label>
      <input
        id={id}
        name="email"
        required
        autoComplete="off"
        placeholder={t("placeholder")}
        className={inputClass}
        role="combobox"
        aria-expanded={showing}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={showing && active >= 0 ? `${listId}-${active}` : undefined}
        value={text}
        onChange={(event) => {
          setText(event.target.value);
          setOpen(true);
        }}
        onKeyDown={onKeyDown}
        onBlur={() => setOpen(false)}
      />
      <ul
        id={listId}
        role="listbox"
        aria-label={t("list")}
        hidden={!showing}
        className="absolute top-full z-10 mt-1 max-h-64 w-full overflow-y-auto rounded-md border border-zinc-200 bg-white py-1 text-sm shadow-lg dark:border-zinc-700 dark:bg-zinc-900"
      >
        {people.map((person, index) => (
          <li
            key={person.id}
            id={`${listId}-${index}`}
            role="option"
            aria-selected={index === active}
            aria-disabled={person.member}
            // mousedown, not click: the input's blur would close the list first
            onMouseDown={(event) => {
              event.preventDefault();
              pick(person);
            }}
            className={`flex cursor-pointer flex-col px-3 py-1.5 ${index === active ? "bg-zinc-100 dark:bg-zinc-800" : ""} ${person.member ? "cursor-default opacity-60" : ""}`}
          >
            <span className="font-medium">
              {person.name}
              {person.member ? <span className="font-normal text-zinc-500">{t("alreadyIn")}</span> : null}
            </span>
            <span className="text-xs text-zinc-500">{person.email}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
