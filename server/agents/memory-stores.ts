/** In-memory SessionStore and ArtifactStore, for tests and the demo's fakes. */
import type { ModelMessage } from "ai";
import type { ArtifactRecord, ArtifactStore, ArtifactWrite, SessionStore } from "./ports.ts";

export class MemorySessionStore implements SessionStore {
  readonly sessions = new Map<string, ModelMessage[]>();

  async load(runId: string): Promise<ModelMessage[] | null> {
    const messages = this.sessions.get(runId);
    // a JSON copy, as a database JSON column would hand back: no shared state, no class instances
    return messages ? (JSON.parse(JSON.stringify(messages)) as ModelMessage[]) : null;
  }

  async save(runId: string, messages: ModelMessage[]): Promise<void> {
    this.sessions.set(runId, JSON.parse(JSON.stringify(messages)) as ModelMessage[]);
  }
}

export class MemoryArtifactStore implements ArtifactStore {
  private readonly files = new Map<string, { record: ArtifactRecord; content: Uint8Array }>();
  private nextId = 1;

  private key(conversationId: string, name: string): string {
    return `${conversationId}\u0000${name}`;
  }

  async list({ conversationId }: { conversationId: string }): Promise<ArtifactRecord[]> {
    return [...this.files.values()]
      .filter((file) => file.record.conversationId === conversationId)
      .map((file) => ({ ...file.record }));
  }

  async read({ conversationId, name }: { conversationId: string; name: string }) {
    const file = this.files.get(this.key(conversationId, name));
    return file ? { record: { ...file.record }, content: file.content.slice() } : null;
  }

  async write(input: ArtifactWrite): Promise<ArtifactRecord> {
    const record: ArtifactRecord = {
      id: `artifact-${this.nextId++}`,
      conversationId: input.conversationId,
      name: input.name,
      mediaType: input.mediaType,
      size: input.content.byteLength,
      sha256: input.sha256,
      untrusted: input.untrusted,
      producer: input.producer,
      createdAt: new Date().toISOString(),
    };
    this.files.set(this.key(input.conversationId, input.name), { record, content: input.content.slice() });
    return { ...record };
  }

  /** Test helper: an upload by a person (no producer). */
  async upload(input: { conversationId: string; name: string; content: string; mediaType?: string; untrusted?: boolean }) {
    const { createHash } = await import("node:crypto");
    const content = new TextEncoder().encode(input.content);
    const record: ArtifactRecord = {
      id: `artifact-${this.nextId++}`,
      conversationId: input.conversationId,
      name: input.name,
      mediaType: input.mediaType ?? "text/plain",
      size: content.byteLength,
      sha256: createHash("sha256").update(content).digest("hex"),
      untrusted: input.untrusted ?? true,
      producer: null,
      createdAt: new Date().toISOString(),
    };
    this.files.set(this.key(input.conversationId, input.name), { record, content });
    return record;
  }
}
