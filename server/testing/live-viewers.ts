/**
 * Viewers for tests of live events: real socket.io-client sockets signed in as one user,
 * each following conversations with the browser's own sync logic (ConversationSync and
 * the seq-ordered store), plus a raw count of the order events arrive in.
 */
import { io, type Socket } from "socket.io-client";
import type { PrismaClient } from "../generated/prisma/client.ts";
import type { ConversationEventDTO } from "../protocol/events.ts";
import { getAuth } from "../auth/session.ts";
import { ConversationSync } from "../../components/conversation/conversation-sync.ts";
import { createConversationStore, type ConversationStoreApi } from "../../components/stores/conversation-store.ts";
import { emptySnapshot } from "./empty-snapshot.ts";

/** Signs a person up (the first one is the admin) and returns their session cookie. */
export async function signUpCookie(prisma: PrismaClient, email: string): Promise<{ cookie: string; userId: string }> {
  const response = await getAuth(prisma).api.signUpEmail({
    body: { name: email.split("@")[0], email, password: "correct horse battery" },
    asResponse: true,
  });
  if (!response.ok) throw new Error(`sign-up failed: ${response.status} ${await response.text()}`);
  const cookie = response.headers
    .getSetCookie()
    .map((line) => line.split(";")[0])
    .join("; ");
  const { user } = (await response.json()) as { user: { id: string } };
  return { cookie, userId: user.id };
}

export interface ArrivalCounts {
  /** live events received */
  received: number;
  /** arrived before an event with a lower seq of the same conversation */
  early: number;
  /** arrived after an event with a higher seq (or twice) */
  late: number;
}

export class Viewer {
  readonly socket: Socket;
  readonly arrivals: ArrivalCounts = { received: 0, early: 0, late: 0 };
  readonly follows = new Map<string, { store: ConversationStoreApi; sync: ConversationSync }>();
  private readonly highest = new Map<string, number>();

  constructor(url: string, cookie: string) {
    this.socket = io(url, { extraHeaders: { cookie }, forceNew: true });
    this.socket.on("conversation-events", (events: ConversationEventDTO[]) => {
      for (const event of events) {
        this.arrivals.received++;
        const highest = this.highest.get(event.conversationId) ?? 0;
        if (event.seq > highest + 1) this.arrivals.early++;
        if (event.seq <= highest) this.arrivals.late++;
        this.highest.set(event.conversationId, Math.max(highest, event.seq));
      }
    });
  }

  connected(): Promise<void> {
    if (this.socket.connected) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.socket.once("connect", () => resolve());
      this.socket.once("connect_error", reject);
    });
  }

  /** Opens a conversation from its current seq, as a page with a fresh snapshot would. */
  follow(conversationId: string, fromSeq: number): void {
    this.highest.set(conversationId, fromSeq);
    const store = createConversationStore();
    store.getState().load(emptySnapshot(conversationId, { lastSeq: fromSeq, title: "" }));
    const sync = new ConversationSync({
      socket: this.socket,
      conversationId,
      store,
      loadSnapshot: () => Promise.reject(new Error("a viewer in a test never falls that far behind")),
    });
    sync.start();
    this.follows.set(conversationId, { store, sync });
  }

  /** joins beyond the first one per conversation, and of those the ones a gap caused */
  replays(): { joins: number; gapReplays: number; earlyInSync: number } {
    let joins = 0;
    let gapReplays = 0;
    let earlyInSync = 0;
    for (const { sync } of this.follows.values()) {
      joins += sync.stats.joins - 1;
      gapReplays += sync.stats.gapReplays;
      earlyInSync += sync.stats.early;
    }
    return { joins, gapReplays, earlyInSync };
  }

  close(): void {
    for (const { sync } of this.follows.values()) sync.stop();
    this.socket.close();
  }
}
