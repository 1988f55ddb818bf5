/** Session lookups for server components (pages and layouts). */
import { headers } from "next/headers";
import { notFound, redirect } from "next/navigation";
import { getSessionUser, type SessionUser } from "./session.ts";
import { getRuntime } from "../runtime.ts";

export async function currentUser(): Promise<SessionUser | null> {
  return getSessionUser(await headers());
}

export async function requirePageUser(): Promise<SessionUser> {
  const user = await currentUser();
  if (!user) redirect("/sign-in");
  return user;
}

export async function requirePageAdmin(): Promise<SessionUser> {
  const user = await requirePageUser();
  if (user.role !== "admin") notFound();
  return user;
}

/** Non-members see the same 404 as for a conversation that does not exist. */
export async function requirePageMember(conversationId: string): Promise<SessionUser> {
  const user = await requirePageUser();
  if (!(await getRuntime().app.conversations.isMember({ conversationId, userId: user.id }))) notFound();
  return user;
}

/** Whether anyone has signed up yet: the first person becomes the admin without an invite. */
export async function hasAnyUser(): Promise<boolean> {
  return getRuntime().app.signUp.hasAnyone();
}
