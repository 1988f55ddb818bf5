import { describe, expect, it } from "vitest";
import type { Prisma } from "../generated/prisma/client.ts";
import { TransactionRequired, transactionRequired, UnitOfWork } from "./unit-of-work.ts";

/** A stand-in client: every table answers every method with what was asked. */
const outside = new Proxy(
  {},
  {
    get: (_client, table) => ({
      findMany: (args: unknown) => Promise.resolve({ table, method: "findMany", args }),
      findUnique: (args: unknown) => Promise.resolve({ table, method: "findUnique", args }),
      update: () => Promise.resolve("written"),
    }),
  },
) as unknown as Prisma.TransactionClient;

describe("transactionRequired (the tx of an optimistic attempt)", () => {
  it("lets the agent directory's reads through to the client outside the transaction", async () => {
    const uow = new UnitOfWork("c1");
    const tx = transactionRequired(uow, outside);
    await expect(tx.agent.findMany({ orderBy: { createdAt: "asc" } })).resolves.toMatchObject({ table: "agent", method: "findMany" });
    await expect(tx.conversationAgent.findMany({ where: { conversationId: "c1" } })).resolves.toMatchObject({
      table: "conversationAgent",
    });
    expect(uow.needsTransaction).toBe(false);
  });

  it("abandons the attempt on a write, even to those tables", () => {
    const uow = new UnitOfWork("c1");
    const tx = transactionRequired(uow, outside);
    expect(() => tx.agent.update({ where: { id: "a" }, data: {} })).toThrow(TransactionRequired);
    expect(uow.needsTransaction).toBe(true);
  });

  it("abandons the attempt on any other table, and on everything without an outside client", () => {
    const first = new UnitOfWork("c1");
    expect(() => transactionRequired(first, outside).planStep).toThrow(TransactionRequired);
    expect(first.needsTransaction).toBe(true);
    const second = new UnitOfWork("c1");
    expect(() => transactionRequired(second).agent).toThrow(TransactionRequired);
    expect(second.needsTransaction).toBe(true);
  });
});
