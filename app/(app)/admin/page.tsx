import { redirect } from "next/navigation";
import { requirePageAdmin } from "@/server/auth/page-session.ts";

export default async function AdminIndex() {
  await requirePageAdmin();
  redirect("/admin/agents");
}
