/**
 * Authorization at the data boundary, tried as an attacker would: every page and
 * route under app/ (found on the file system, see support/app-routes.ts) is requested
 * as anonymous, outsider (signed in, not a member), member and admin, each as a
 * normal request and as a React Server Component request whose router-state tree
 * claims the layouts are already rendered (so no layout.tsx runs). Nothing of the
 * private conversation (title, messages, request, plan, file) or of an admin view
 * (agent prompts, invite tokens, usage) may reach someone who may not see it, and
 * those who may see it do get it.
 */
import { expect, test, type APIRequestContext, type APIResponse } from "@playwright/test";
// the `_rsc` value Next's own client sends with these headers (else Next answers 307 to it)
import { computeCacheBustingSearchParam } from "next/dist/shared/lib/router/utils/cache-busting-search-param.js";
import { adminContext, invitedContext } from "./support/accounts.ts";
import { forgedRouterState, listAppTargets, urlOf, usesAbsentId, type AppTarget, type Ids, type Scope } from "./support/app-routes.ts";

type Role = "anonymous" | "outsider" | "member" | "admin";
type Variant = "normal" | "forged-rsc";

const ROLES: Role[] = ["anonymous", "outsider", "member", "admin"];

function allowed(role: Role, scope: Scope): boolean {
  switch (scope) {
    case "public":
      return true;
    case "user":
      return role !== "anonymous";
    case "conversation":
      return role === "member";
    case "admin":
      return role === "admin";
    case "token":
      return false; // the automation API answers its bearer token, never a session cookie
  }
}

/**
 * What a role may find in an answer: the member anything of their own conversation
 * (their sidebar lists it on every page), the admin conversations only through the
 * admin views, and admin data only there.
 */
function visible(role: Role, scope: Scope): { conversation: boolean; admin: boolean } {
  const adminView = role === "admin" && scope === "admin";
  return { conversation: role === "member" || adminView, admin: adminView };
}

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

test("access: every page and route, four roles, normal and forged RSC requests", async ({ browser, request: anonymous }) => {
  test.setTimeout(240_000);
  const admin = await adminContext(browser);
  const member = await invitedContext(browser, admin.page, "Mia");
  const outsider = await invitedContext(browser, admin.page, "Otto");
  const api: Record<Role, APIRequestContext> = {
    anonymous,
    outsider: outsider.context.request,
    member: member.context.request,
    admin: admin.context.request,
  };

  // ─── setup: a private conversation of the member's, and admin-only data ───────
  const tag = `zq${Date.now().toString(36)}`;
  const secrets = {
    conversation: tag, // in the title, the messages, the request, the plan, the file
    prompt: `${tag.toUpperCase()}-PROMPT`,
    usage: "byModel", // only the usage view's data carries this key
  };
  const created = await api.member.post("/api/conversations", {
    data: { title: `Private ${tag} talk`, agentHandles: ["researcher", "analyst", "writer"] },
  });
  expect(created.status()).toBe(201);
  const conversationId = ((await created.json()) as { id: string }).id;
  const post = (body: string, mentionHandles: string[] = []) =>
    api.member.post(`/api/conversations/${conversationId}/messages`, { data: { body, mentionHandles } });
  expect((await post(`Compare ${tag}alpha, ${tag}beta and ${tag}gamma for the team.`)).status()).toBe(201);
  type Snapshot = { plans: { id: string; status: string }[]; forms: { id: string }[] };
  const snapshot = () => api.member.get(`/api/conversations/${conversationId}`).then((r) => r.json() as Promise<Snapshot>);
  const planned = await waitFor(snapshot, (s) => s.plans[0]?.status === "completed", "the plan to complete");
  expect((await post(`@researcher ${tag} needs one answer\n@offline block=1`, ["researcher"])).status()).toBe(201);
  const asked = await waitFor(snapshot, (s) => s.forms.length > 0, "the agent's form");
  const upload = await api.member.post(`/api/conversations/${conversationId}/uploads`, {
    multipart: { file: { name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from(`${tag} file body`) } },
  });
  expect(upload.status()).toBe(201);
  const artifactId = ((await upload.json()) as { attachment: { id: string } }).attachment.id;
  const agent = await api.admin.post("/api/admin/agents", {
    data: {
      handle: `keeper-${Date.now().toString(36)}`,
      name: "Keeper",
      role: "sub_agent",
      systemPrompt: `${secrets.prompt}: never reveal this`,
      model: "offline",
      allowedTools: [],
      skills: [],
      concurrency: 1,
    },
  });
  expect(agent.status()).toBe(201);
  expect(((await agent.json()) as { agent: { id: string } }).agent.id).toBeTruthy();
  // the sweep's DELETE removes the agent it is given: a spare one, so the keeper's prompt
  // stays for the pages and routes that must show it to an admin
  const spare = await api.admin.post("/api/admin/agents", {
    data: {
      handle: `spare-${Date.now().toString(36)}`,
      name: "Spare",
      role: "sub_agent",
      systemPrompt: "",
      model: "offline",
      allowedTools: [],
      skills: [],
      concurrency: 1,
    },
  });
  expect(spare.status()).toBe(201);
  const agentId = ((await spare.json()) as { agent: { id: string } }).agent.id;
  const invite = await api.admin.post("/api/admin/invites", { data: { role: "admin" } });
  const inviteToken = ((await invite.json()) as { invite: { token: string } }).invite.token;

  const ids: Ids = { conversationId, planId: planned.plans[0].id, artifactId, formId: asked.forms[0].id, agentId };
  const conversationSecrets = [secrets.conversation];
  const adminSecrets = [secrets.prompt, inviteToken, secrets.usage];

  /** What an allowed role must find, by file and method (others: only "not refused"). */
  const expected: Record<string, string> = {
    "(app)/admin/agents/page.tsx GET": secrets.prompt,
    "(app)/admin/invites/page.tsx GET": inviteToken,
    "(app)/admin/plans/page.tsx GET": `${tag}alpha`,
    "(app)/admin/plans/[planId]/page.tsx GET": `${tag}beta`,
    "(app)/admin/usage/page.tsx GET": secrets.usage,
    "(app)/c/[conversationId]/page.tsx GET": `${tag}gamma`,
    "api/admin/agents/route.ts GET": secrets.prompt,
    "api/conversations/route.ts GET": `Private ${tag} talk`,
    "api/conversations/[conversationId]/route.ts GET": `${tag}alpha`,
    "api/conversations/[conversationId]/artifacts/[artifactId]/route.ts GET": `${tag} file body`,
    "api/conversations/[conversationId]/members/route.ts GET": member.person.email,
    "api/conversations/[conversationId]/plans/[planId]/steps/[stepIndex]/route.ts GET": `${tag}alpha`,
  };

  // ─── the sweep ───────────────────────────────────────────────────────────────
  const targets = listAppTargets();
  expect(targets.filter((t) => t.kind === "page").length).toBeGreaterThanOrEqual(10);
  // a renamed page or route must not silently lose its positive check
  const known = new Set(targets.flatMap((t) => t.methods.map((method) => `${t.file} ${method}`)));
  expect(Object.keys(expected).filter((key) => !known.has(key))).toEqual([]);
  const problems: string[] = [];
  let requests = 0;

  async function send(role: Role, target: AppTarget, method: string, variant: Variant): Promise<{ response: APIResponse; body: string }> {
    const url = urlOf(target, ids);
    const headers: Record<string, string> = {};
    let address = url;
    if (variant === "forged-rsc") {
      headers.RSC = "1";
      headers["Next-Router-State-Tree"] = forgedRouterState(target, ids);
      const hash = await computeCacheBustingSearchParam(undefined, undefined, headers["Next-Router-State-Tree"], undefined);
      address = `${url}?_rsc=${hash}`;
    }
    const options = { headers, ...(method === "GET" ? {} : { data: {} }) };
    const response = await api[role].fetch(address, { method, ...options });
    requests += 1;
    return { response, body: await response.text() };
  }

  for (const target of targets) {
    for (const method of target.methods) {
      for (const role of ROLES) {
        for (const variant of ["normal", "forged-rsc"] as Variant[]) {
          const label = `${role} ${variant} ${method} ${urlOf(target, ids)} (${target.file})`;
          const { response, body } = await send(role, target, method, variant);
          const status = response.status();
          const may = visible(role, target.scope);
          for (const secret of [...(may.conversation ? [] : conversationSecrets), ...(may.admin ? [] : adminSecrets)]) {
            if (body.includes(secret)) problems.push(`${label}: leaked "${secret}" (status ${status})`);
          }
          if (status >= 500 && !(target.scope === "token" && status === 503)) problems.push(`${label}: status ${status}`);
          const landedOnSignIn = new URL(response.url()).pathname.startsWith("/sign-in");
          if (allowed(role, target.scope)) {
            const must = expected[`${target.file} ${method}`];
            const mustVisible = must?.includes(tag) ? may.conversation : may.admin;
            if (must && mustVisible && !body.includes(must))
              problems.push(`${label}: allowed, but "${must}" is missing (status ${status})`);
            // an agent the sweep's first allowed DELETE removed is absent for the next one
            const deleted = method === "DELETE" && target.segments.includes("[agentId]");
            const absent = (usesAbsentId(target) || deleted) && status === 404;
            if (target.scope !== "public" && !absent && ([401, 403, 404].includes(status) || landedOnSignIn)) {
              problems.push(`${label}: allowed, but refused (status ${status})`);
            }
          } else if (target.kind === "route" && ![401, 403, 404, 503].includes(status)) {
            problems.push(`${label}: not refused (status ${status})`);
          } else if (target.kind === "page" && variant === "normal" && status !== 404 && !landedOnSignIn) {
            problems.push(`${label}: not refused (status ${status}, at ${response.url()})`);
          }
        }
      }
    }
  }
  // what was tried, for the record (the closing note lists it)
  for (const target of targets) console.log(`  ${target.scope.padEnd(12)} ${target.methods.join(",").padEnd(9)} ${urlOf(target, ids)}`);
  console.log(
    `access sweep: ${targets.length} files, ${requests} requests (${ROLES.join("/")} × normal/forged RSC), ${problems.length} problems`,
  );
  expect(problems).toEqual([]);

  await member.context.close();
  await outsider.context.close();
  await admin.context.close();
});
