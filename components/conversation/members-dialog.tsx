"use client";
import { useState, type FormEvent } from "react";
import { apiFetch } from "../api-client.ts";
import { useConversationStore } from "../stores/conversation-store.ts";
import { Avatar } from "../ui/avatar.tsx";
import { Button } from "../ui/button.tsx";
import { UsersIcon } from "../ui/icons.tsx";
import { Dialog } from "../ui/dialog.tsx";
import { ErrorText, TextField } from "../ui/field.tsx";

export function MembersButton({ conversationId }: { conversationId: string }) {
  const [open, setOpen] = useState(false);
  const members = useConversationStore((s) => s.members);
  const agents = useConversationStore((s) => s.agents);
  return (
    <>
      <Button variant="secondary" size="sm" onClick={() => setOpen(true)} aria-label="Members">
        <UsersIcon size={16} /> {members.length}
      </Button>
      <Dialog open={open} onClose={() => setOpen(false)} title="People and agents">
        <MembersForm conversationId={conversationId} />
        <h3 className="mb-1 mt-4 text-sm font-semibold">Members</h3>
        <ul className="space-y-1">
          {members.map((member) => (
            <li key={member.id} className="flex items-center gap-2 text-sm">
              <Avatar name={member.name} size={24} /> {member.name}
            </li>
          ))}
        </ul>
        <h3 className="mb-1 mt-4 text-sm font-semibold">Agents</h3>
        <ul className="space-y-1">
          {agents.map((agent) => (
            <li key={agent.id} className="flex items-center gap-2 text-sm">
              <Avatar name={agent.handle} kind="agent" size={24} /> @{agent.handle} <span className="text-zinc-500">{agent.role === "commander" ? "commander" : agent.name}</span>
            </li>
          ))}
        </ul>
      </Dialog>
    </>
  );
}

function MembersForm({ conversationId }: { conversationId: string }) {
  const [error, setError] = useState("");
  const [notice, setNotice] = useState("");
  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const email = String(new FormData(formElement).get("email") ?? "");
    setError("");
    setNotice("");
    try {
      const { member } = await apiFetch<{ member: { id: string; name: string } }>(`/api/conversations/${conversationId}/members`, { method: "POST", json: { email } });
      useConversationStore.setState((s) => ({ members: [...s.members, member] }));
      setNotice(`${member.name} was added.`);
      formElement.reset();
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : "Could not add.");
    }
  }
  return (
    <form onSubmit={submit} className="flex flex-col gap-2" aria-label="Add a member">
      <TextField label="Add a person by email" name="email" type="email" required placeholder="teammate@example.com" />
      <ErrorText>{error}</ErrorText>
      {notice ? <p className="text-sm text-emerald-600">{notice}</p> : null}
      <div>
        <Button type="submit" size="sm">
          Add member
        </Button>
      </div>
    </form>
  );
}
