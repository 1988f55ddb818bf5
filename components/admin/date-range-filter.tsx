import { useTranslations } from "next-intl";
import { inputClass } from "@/components/ui/field.tsx";

/** The end of an admin filter form: a From–To date range (`from`, `to` in the query) and its submit. */
export function DateRangeFilter({ from, to }: { from?: string; to?: string }) {
  const t = useTranslations("admin.dateRange");
  return (
    <>
      <label className="flex flex-col gap-1 text-sm">
        {t("from")}
        <input type="date" name="from" defaultValue={from ?? ""} className={inputClass} />
      </label>
      <label className="flex flex-col gap-1 text-sm">
        {t("to")}
        <input type="date" name="to" defaultValue={to ?? ""} className={inputClass} />
      </label>
      <button type="submit" className="h-10 rounded-md bg-accent px-4 text-sm font-medium text-white">
        {t("filter")}
      </button>
    </>
  );
}

/** A filter's `YYYY-MM-DD` day as a UTC instant: its start, or with `endOfDay` the next day's start. Anything else: no bound. */
export function parseFilterDay(value: string | undefined, endOfDay = false): Date | undefined {
  if (!value || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
  const date = new Date(`${value}T00:00:00Z`);
  if (endOfDay) date.setUTCDate(date.getUTCDate() + 1);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** A filtered admin list's link: the filters kept (empty ones dropped), plus the page's cursor. */
export function filteredHref(path: string, query: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value) params.set(key, value);
  return `${path}?${params.toString()}`;
}
