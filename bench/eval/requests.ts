/**
 * The evaluation's requests: what people ask a team of agents, from questions that need
 * no plan to comparisons, research, code changes and work that needs a person's answer.
 * `offline` is added only when the harness runs against the fakes: the offline model
 * behind them asks a person only when a directive tells it to.
 */
export type EvalRequestKind = "comparison" | "research" | "code-change" | "needs-person" | "simple";

export interface EvalRequest {
  id: string;
  kind: EvalRequestKind;
  text: string;
  /** directives for the offline model (fakes only), e.g. `@offline block=1`, put on a line of its own */
  offline?: string;
}

/** The request the caching figures are measured on: 4 companies × 3 aspects. */
export const COMPARE_4X3: EvalRequest = {
  id: "compare-4x3",
  kind: "comparison",
  text: "Compare Acme, Globex, Initech and Umbrella on price, support and security.",
};

export const EVAL_REQUESTS: EvalRequest[] = [
  COMPARE_4X3,
  {
    id: "compare-databases",
    kind: "comparison",
    text: "Compare PostgreSQL, MySQL and SQLite for a self-hosted chat app with 200 users: operations, backups and full-text search.",
  },
  {
    id: "compare-clouds",
    kind: "comparison",
    text: "Compare Hetzner, OVH and DigitalOcean for hosting one 8 GB server in the EU: monthly price, support and network.",
  },
  {
    id: "compare-frameworks",
    kind: "comparison",
    text: "Which should we pick for the admin dashboard: React, Svelte or Vue? Compare them on hiring, bundle size and ecosystem.",
  },
  {
    id: "compare-llms",
    kind: "comparison",
    text: "Compare Claude Sonnet, GPT-4.1 and Llama 3 70B for summarising support tickets: quality, cost per 1,000 tickets and privacy.",
  },
  {
    id: "research-webgpu",
    kind: "research",
    text: "Research the state of WebGPU support in browsers and what it means for running small models in the client. Cite sources.",
  },
  {
    id: "research-gdpr",
    kind: "research",
    text: "What does GDPR require of us if chat messages are sent to a model provider in the US? Summarise obligations and options.",
  },
  {
    id: "research-competitors",
    kind: "research",
    text: "Research Slack, Microsoft Teams and Mattermost AI features, and list which ones our users ask for most in reviews.",
  },
  {
    id: "research-pricing",
    kind: "research",
    text: "Find out how three comparable SaaS tools price per seat versus per usage, and draft a one-page pricing proposal.",
  },
  {
    id: "code-rate-limit",
    kind: "code-change",
    text: "Add a per-user rate limit of 30 messages a minute to the message endpoint, with a test, and explain the change.",
  },
  {
    id: "code-bug",
    kind: "code-change",
    text: "Users report that editing a message twice quickly loses the second edit. Find the cause and propose a fix with a test.",
  },
  {
    id: "code-refactor",
    kind: "code-change",
    text: "Split the 600-line settings page into a form, validation and persistence module, keeping behaviour unchanged.",
  },
  {
    id: "code-migration",
    kind: "code-change",
    text: "Write the database migration and code to add an archived flag to conversations, hidden from the sidebar by default.",
  },
  {
    id: "person-offsite",
    kind: "needs-person",
    text: "Plan our team offsite: compare Lisbon, Porto and Madrid for 12 people in May, and ask me for the budget first.",
    offline: "@offline block=1",
  },
  {
    id: "person-release",
    kind: "needs-person",
    text: "Prepare the release notes for 2.3 and the announcement email, and check with me which features to highlight.",
    offline: "@offline block=1",
  },
  {
    id: "person-hiring",
    kind: "needs-person",
    text: "Draft job ads for a backend engineer, a designer and a support lead; ask me for the salary ranges before you write them.",
    offline: "@offline block=1",
  },
  { id: "simple-hello", kind: "simple", text: "Hi! What can you help me with?" },
  { id: "simple-define", kind: "simple", text: "What is a prompt cache, in one sentence?" },
  { id: "simple-time", kind: "simple", text: "How many minutes are there in a week?" },
  { id: "simple-thanks", kind: "simple", text: "Thanks, that was helpful." },
];
