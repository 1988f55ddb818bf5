/**
 * A conversation that already has a history, as a team's day produces one: people's
 * questions and notes, the sub-agents' results and the commander's answers. The eval's
 * "with history" case sends its request after these, so the commander's planning call
 * carries the conversation before the new turn, as it does in real use.
 *
 * The texts are fixed (the figures must repeat) and of the lengths such messages have:
 * a line from a person, a paragraph or a short table from an agent.
 */
import type { PrismaClient } from "../../server/generated/prisma/client.ts";

type Author = { kind: "user" } | { kind: "agent"; handle: string };

const PERSON: Author = { kind: "user" };
const agent = (handle: string): Author => ({ kind: "agent", handle });

/** Alternating between people and agents, oldest first. */
const TEAM_DAY: [Author, string][] = [
  [PERSON, "Morning all. Today: the vendor shortlist for the support desk, the offsite budget, and the release notes for 2.4."],
  [agent("commander"), "Noted. I'll keep the three threads apart; ask me to plan any of them when you want the team on it."],
  [PERSON, "@researcher what are the current seat prices for Zendesk and Freshdesk, annual billing, EU region?"],
  [
    agent("researcher"),
    "Zendesk Suite Team is 55 EUR per agent per month billed annually, Suite Growth 89 EUR, Suite Professional 115 EUR. " +
      "Freshdesk Growth is 15 EUR, Pro 49 EUR and Enterprise 79 EUR per agent per month, annual billing. Both host EU data in " +
      "Frankfurt or Dublin on request; Zendesk charges for the data-locality add-on on Growth and below, Freshdesk includes it from Pro.",
  ],
  [PERSON, "Thanks. We have 14 agents today and expect 20 by summer, so price the 20-seat case too."],
  [
    agent("analyst"),
    "At 20 seats, annual: Zendesk Growth 21,360 EUR, Professional 27,600 EUR; Freshdesk Pro 11,760 EUR, Enterprise 18,960 EUR. " +
      "The gap narrows once Zendesk's data-locality add-on is priced in for Growth (about 10 % more). If SSO is a must, only " +
      "Zendesk Professional and Freshdesk Enterprise include it without a further add-on.",
  ],
  [PERSON, "SSO is a must, security said so last quarter. Keep that as a hard requirement."],
  [
    agent("commander"),
    "Understood: SSO is a hard requirement for the support desk vendor. That leaves Zendesk Professional and Freshdesk Enterprise.",
  ],
  [PERSON, "Switching topics: the offsite. Venue options are Lisbon and Porto, three nights, 18 people, second week of May."],
  [
    agent("researcher"),
    "Lisbon: two venues with rooms for 18 and a meeting room are free that week, 165–190 EUR per person per night with breakfast. " +
      "Porto: one venue, 140 EUR per person per night, meeting room included. Direct flights from Berlin to both, Porto has fewer " +
      "daily connections (3 against 9).",
  ],
  [PERSON, "Finance wants the whole offsite under 25k including flights. Is that realistic?"],
  [
    agent("analyst"),
    "Porto: rooms 7,560 EUR, flights about 4,700 EUR at today's fares, meals and a team dinner about 5,400 EUR: roughly 17,700 EUR. " +
      "Lisbon at the cheaper venue: 8,910 EUR rooms, 4,300 EUR flights, 5,900 EUR meals: roughly 19,100 EUR. Both fit under 25k with room " +
      "for an activity day; Porto leaves more margin.",
  ],
  [PERSON, "Good. Let's hold Porto tentatively. @writer can you draft a short note to the team announcing the dates?"],
  [
    agent("writer"),
    "Draft: “Save the date: our team offsite is in Porto from 12 to 15 May. Three nights, one shared venue, flights booked for you " +
      "by the office. The agenda follows next week; tell Ada by Friday about dietary needs or travel constraints.”",
  ],
  [PERSON, "Looks good, send it after lunch. Nobody should book anything privately yet."],
  [agent("commander"), "Noted: the announcement goes out after lunch, with a line asking people not to book privately."],
  [PERSON, "Release notes for 2.4: the big items are the new search, the export to CSV and the permissions rework."],
  [
    agent("writer"),
    "Outline for 2.4: 1. Search that finds words inside Chinese, Japanese and Korean text. 2. Export any conversation to CSV from its " +
      "menu. 3. Permissions: owners and members per conversation, admins act as owners. 4. Smaller fixes: faster sidebar, clearer errors " +
      "when a file is too large.",
  ],
  [PERSON, "Add a line about the migration: admins must run it before upgrading the second server."],
  [agent("writer"), "Added under a new heading “Upgrading”: run the migration once, before the second server starts on 2.4."],
  [PERSON, "@analyst how many support tickets did we close last week compared with the week before?"],
  [
    agent("analyst"),
    "Last week 412 tickets closed against 371 the week before (+11 %). Median first response went from 3 h 10 min to 2 h 40 min. " +
      "Reopened tickets stayed flat at about 6 %. The rise is mostly billing questions after the price change on the 1st.",
  ],
  [PERSON, "Billing questions should drop once the FAQ is updated. Who owns the FAQ?"],
  [agent("commander"), "The FAQ was last edited by the support lead; I can ask @writer to draft the billing section if you want."],
  [PERSON, "Yes, but after the release notes. Priorities today: release notes first, then vendor choice, then the FAQ."],
  [agent("commander"), "Priorities noted: 1. release notes, 2. support desk vendor, 3. billing FAQ."],
  [PERSON, "Back to the vendors in a minute, I want the security view first."],
  [
    agent("researcher"),
    "Security notes: both vendors hold ISO 27001 and SOC 2 Type II reports; Zendesk publishes a sub-processor list with 30-day notice, " +
      "Freshdesk with 15-day notice. Both support SAML SSO and SCIM on the plans that include SSO.",
  ],
];

/** The number of history messages a "team's day" has. */
export const TEAM_DAY_MESSAGES = TEAM_DAY.length;

/** `days` of the team's work, oldest first: each further day goes over the same threads again. */
function teamDays(days: number): [Author, string][] {
  return Array.from({ length: days }, (_, day) =>
    TEAM_DAY.map(([author, body]): [Author, string] => [author, day === 0 ? body : `(day ${day + 1}) ${body}`]),
  ).flat();
}

/**
 * Writes `days` of the team's day into a conversation, a minute apart and ending a minute
 * ago, as stored messages (the agents' results and answers too: nothing here calls a model).
 */
export async function seedTeamDay(prisma: PrismaClient, input: { conversationId: string; userId: string; days: number }): Promise<void> {
  const agents = await prisma.agent.findMany({ select: { id: true, handle: true } });
  const history = teamDays(input.days);
  const start = Date.now() - (history.length + 1) * 60_000;
  await prisma.message.createMany({
    data: history.map(([author, body], i) => {
      const agentId = author.kind === "agent" ? agents.find((candidate) => candidate.handle === author.handle)?.id : undefined;
      if (author.kind === "agent" && !agentId) throw new Error(`team day: no agent @${author.handle} in the workspace`);
      return {
        conversationId: input.conversationId,
        createdAt: new Date(start + i * 60_000),
        body,
        ...(author.kind === "user"
          ? { authorKind: "user" as const, authorUserId: input.userId }
          : { authorKind: "agent" as const, authorAgentId: agentId }),
      };
    }),
  });
}
