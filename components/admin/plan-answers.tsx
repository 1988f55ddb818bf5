/**
 * The end of a plan's story on the admin plan page: the final answer its result steps
 * posted, and each question (form) it asked, who answered it and when.
 */
import type { PlanAnswers } from "@/server/protocol/rest/admin-views.ts";
import { Markdown } from "../conversation/markdown.tsx";

const when = (iso: string) => iso.slice(0, 16).replace("T", " ");

export function PlanAnswersView({ answers }: { answers: PlanAnswers }) {
  return (
    <>
      <section
        aria-label="Final answer"
        className="rounded-lg border border-zinc-200 p-3 text-sm dark:border-zinc-800"
        data-testid="final-answer"
      >
        <h3 className="mb-2 font-semibold">Final answer</h3>
        {answers.finalAnswer.length === 0 ? <p className="text-zinc-500">No result was delivered (yet).</p> : null}
        {answers.finalAnswer.map((result) => (
          <article key={result.stepIndex} className="mb-2 last:mb-0">
            {answers.finalAnswer.length > 1 ? (
              <p className="text-xs text-zinc-500">
                Step {result.stepIndex}. {result.title}
              </p>
            ) : null}
            <div className="min-w-0">
              <Markdown text={result.body} />
            </div>
          </article>
        ))}
      </section>
      {answers.forms.length ? (
        <section aria-label="Questions asked" className="rounded-lg border border-zinc-200 p-3 text-sm dark:border-zinc-800">
          <h3 className="mb-2 font-semibold">Questions asked</h3>
          <ul className="space-y-1" data-testid="plan-forms">
            {answers.forms.map((form) => (
              <li key={form.id} data-testid="plan-form" data-status={form.status}>
                <span className="font-medium">{form.title}</span>
                {form.stepIndex !== null ? <span className="text-zinc-500"> (step {form.stepIndex})</span> : null} —{" "}
                {form.answeredBy && form.answeredAt ? (
                  <span>
                    answered by {form.answeredBy.name} at <time dateTime={form.answeredAt}>{when(form.answeredAt)}</time>
                  </span>
                ) : form.status === "open" ? (
                  <span className="text-amber-800 dark:text-amber-300">waiting for an answer since {when(form.openedAt)}</span>
                ) : (
                  <span className="text-zinc-500">closed without an answer</span>
                )}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </>
  );
}
