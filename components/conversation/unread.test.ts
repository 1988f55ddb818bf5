import { describe, expect, it } from "vitest";
import { unreadSince } from "./unread.ts";

const message = (id: string, createdAt: string, authorId: string, deletedAt: string | null = null) => ({
  id,
  createdAt,
  author: { id: authorId, name: authorId },
  deletedAt,
});

describe("what is new since the reader's mark", () => {
  const messages = [
    message("m1", "2026-01-01T10:00:00.000Z", "bo"),
    message("m2", "2026-01-01T10:05:00.000Z", "ana"),
    message("m3", "2026-01-01T10:06:00.000Z", "bo"),
    message("m4", "2026-01-01T10:07:00.000Z", "bo", "2026-01-01T10:08:00.000Z"),
    message("m5", "2026-01-01T10:09:00.000Z", "bo"),
  ];

  it("starts at the first later message someone else wrote, and counts those", () => {
    expect(unreadSince(messages, { lastReadAt: "2026-01-01T10:01:00.000Z", currentUserId: "ana" })).toEqual({ firstId: "m3", count: 2 });
  });

  it("counts nothing when everything was read, and marks nothing for someone who never read", () => {
    expect(unreadSince(messages, { lastReadAt: "2026-01-01T10:09:00.000Z", currentUserId: "ana" })).toEqual({ firstId: null, count: 0 });
    expect(unreadSince(messages, { lastReadAt: null, currentUserId: "ana" })).toEqual({ firstId: null, count: 0 });
  });

  it("compares instants, not text", () => {
    expect(unreadSince(messages, { lastReadAt: "2026-01-01T11:08:00+01:00", currentUserId: "ana" })).toEqual({ firstId: "m5", count: 1 });
  });
});
