/**
 * Every page and route handler under app/, read from the file system, so the access
 * test covers a new page or route without being edited. A dynamic segment is filled
 * from the ids the test created; one it does not know fails loudly, naming it.
 */
import fs from "node:fs";
import path from "node:path";

/** Who may see a target: everyone, any signed-in person, a conversation's members, admins, or only the API token. */
export type Scope = "public" | "user" | "conversation" | "admin" | "token";

export interface AppTarget {
  /** the file, relative to app/ (e.g. `(app)/c/[conversationId]/page.tsx`) */
  file: string;
  kind: "page" | "route";
  /** the folders from app/ down to the file, route groups included */
  segments: string[];
  /** HTTP methods a route handler exports; pages are GET */
  methods: string[];
  scope: Scope;
}

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];

function exportedMethods(source: string): string[] {
  const found = new Set<string>();
  for (const match of source.matchAll(/export\s+(?:async\s+)?(?:const|function)\s+([A-Z]+)\b/g)) found.add(match[1]);
  for (const match of source.matchAll(/export\s+const\s*\{([^}]*)\}/g)) {
    for (const name of match[1].split(",")) found.add(name.trim());
  }
  return METHODS.filter((method) => found.has(method));
}

function scopeOf(segments: string[]): Scope {
  const plain = segments.filter((segment) => !segment.startsWith("("));
  if (plain[0] === "api" && plain[1] === "v1") return "token";
  if (plain.includes("admin")) return "admin";
  if (plain.includes("[conversationId]")) return "conversation";
  if (plain[0] === "api" && plain[1] === "auth") return "public";
  // pages outside the signed-in (app) group are the sign-in and sign-up screens
  if (plain[0] !== "api" && segments[0] !== "(app)") return "public";
  return "user";
}

export function listAppTargets(appDir = path.resolve("app")): AppTarget[] {
  const targets: AppTarget[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/^(page|route)\.(tsx?|jsx?)$/.test(entry.name)) {
        const file = path.relative(appDir, full).split(path.sep).join("/");
        const segments = file.split("/").slice(0, -1);
        const kind = entry.name.startsWith("page") ? "page" : "route";
        const methods = kind === "page" ? ["GET"] : exportedMethods(fs.readFileSync(full, "utf8"));
        targets.push({ file, kind, segments, methods, scope: scopeOf(segments) });
      }
    }
  };
  walk(appDir);
  return targets.sort((a, b) => a.file.localeCompare(b.file));
}

export interface Ids {
  conversationId: string;
  planId: string;
  artifactId: string;
  formId: string;
  agentId: string;
}

/** The value of a dynamic folder (`[name]`, `[...name]`) given the folder before it. */
function fill(segment: string, previous: string | undefined, ids: Ids): string {
  const name = segment.slice(1, -1).replace(/^\.\.\./, "");
  switch (name) {
    case "conversationId":
    case "planId":
    case "artifactId":
    case "formId":
    case "agentId":
      return ids[name];
    case "stepIndex":
    case "index":
      return "1";
    // ids the sweep must not act on (removing a person, withdrawing or accepting an
    // invitation would change what the later requests see): ids that exist nowhere
    case "userId":
    case "invitationId":
    case "tokenId":
    case "runId":
    case "messageId": // editing or deleting a real message would change what later requests see
    case "repositoryId": // the access test registers no repository
    case "inviteId": // revoking a real invite link would change what later requests see
      return `absent-${name}`;
    case "all":
      return "get-session"; // better-auth's catch-all: the one read it serves
    case "id":
      if (previous === "plans") return ids.planId;
      if (previous === "conversations") return ids.conversationId;
  }
  throw new Error(`the access test has no id for ${segment} after "${previous}": add one in e2e/support/app-routes.ts`);
}

/** True when the target's id exists nowhere (see fill): "not found" is then the right answer for everyone. */
export function usesAbsentId(target: AppTarget): boolean {
  // …and a conversation's agent: the admin's new agent exists, but not in this conversation
  const conversationAgent = target.segments.includes("[conversationId]") && target.segments.includes("[agentId]");
  return (
    conversationAgent ||
    target.segments.some((segment) =>
      ["[userId]", "[invitationId]", "[tokenId]", "[runId]", "[messageId]", "[repositoryId]", "[inviteId]"].includes(segment),
    )
  );
}

export function urlOf(target: AppTarget, ids: Ids): string {
  const parts: string[] = [];
  target.segments.forEach((segment, i) => {
    if (segment.startsWith("(")) return;
    parts.push(segment.startsWith("[") ? fill(segment, target.segments[i - 1], ids) : segment);
  });
  return `/${parts.join("/")}`;
}

type TreeSegment = string | [string, string, "d" | "c", null];
type Tree = [TreeSegment, Record<string, Tree>, ...unknown[]];

/**
 * A Next-Router-State-Tree claiming that every layout down to the target's folder is
 * already on screen (and some other page below it): Next then renders only the page
 * segment, so no layout.tsx above it runs. What an attacker sends.
 */
export function forgedRouterState(target: AppTarget, ids: Ids): string {
  let tree: Tree = ["__forged__", {}];
  for (let i = target.segments.length - 1; i >= 0; i -= 1) {
    const segment = target.segments[i];
    const node: TreeSegment = segment.startsWith("[")
      ? [
          segment.slice(1, -1).replace(/^\.\.\./, ""),
          fill(segment, target.segments[i - 1], ids),
          segment.startsWith("[...") ? "c" : "d",
          null,
        ]
      : segment;
    tree = [node, { children: tree }];
  }
  const root: Tree = ["", { children: tree }];
  return encodeURIComponent(JSON.stringify(root));
}
