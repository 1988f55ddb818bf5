/**
 * The end of a plan's story on the admin plan page: the final answer its result steps
 * posted, and each question (form) it asked, who answered it and when.
 */
import { useTranslations } from "next-intl";
import type { PlanAnswers } from "@/server/protocol/rest/admin-views.ts";
import { Markdown } from "../conversation/markdown.tsx";

const when = (iso: string) => iso.slice(0, 16).replace("T", " ");

export function PlanAnswersView({ answers }: { answers: PlanAnswers }) {
  const t = useTranslations("admin.answers");
  return (
    <>
      <section
        aria-label={t("finalAnswer")}
        className="rounded-lg border border-zinc-200 p-3 text-sm dark:border-zinc-800"
        data-testid="final-answer"
      >
        <h3 className="mb-2 font-semibold">{t("finalAnswer")}</h3>
        {answers.finalAnswer.length === 0 ? <p className="text-zinc-500">{t("noResult")}</p> : null}
        {answers.finalAnswer.map((result) => (
          <article key={result.stepIndex} className="mb-2 last:mb-0">
            {answers.finalAnswer.length > 1 ? (
              <p className="text-xs text-zinc-500">{t("step", { index: result.stepIndex, title: result.title })}</p>
            ) : null}
            <div className="min-w-0">
              <Markdown text={result.body} />
            </div>
          </article>
        ))}
      </section>
      {answers.forms.length ? (
        <section aria-label={t("questions")} className="rounded-lg border border-zinc-200 p-3 text-sm dark:border-zinc-800">
          <h3 className="mb-2 font-semibold">{t("questions")}</h3>
          <ul className="space-y-1" data-testid="plan-forms">
            {answers.forms.map((form) => (
              <li key={form.id} data-testid="plan-form" data-status={form.status}>
                <span className="font-medium">{form.title}</span>
                {form.stepIndex !== null ? <span className="text-zinc-500"> {t("formStep", { index: form.stepIndex })}</span> : null} —{" "}
                {form.answeredBy && form.answeredAt ? (
                  <span>
                    {t.rich("answeredBy", {
                      name: form.answeredBy.name,
                      at: when(form.answeredAt),
                      time: (chunks) => <time dateTime={form.answeredAt ?? undefined}>{chunks}</time>,
                    })}
                  </span>
                ) : form.status === "open" ? (
                  <span className="text-amber-800 dark:text-amber-300">{t("waiting", { since: when(form.openedAt) })}</span>
                ) : (
                  <span className="text-zinc-500">{t("closed")}</span>
                )}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </>
  );
}
