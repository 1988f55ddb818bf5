import { describe, expect, it } from "vitest";
import { DriverAdapterError } from "@prisma/driver-adapter-utils";
import { databaseErrorInfo, isRefusedWrite, isRowNotFound, isWriteConflict } from "./database-errors.ts";

const pgError = (code: string, message = "refused") => Object.assign(new Error(message), { severity: "ERROR", code });

describe("isRefusedWrite", () => {
  it("is true for data, constraint and limit errors, read from the SQLSTATE", () => {
    for (const code of ["22003", "22P05", "23505", "54000", "22021"]) expect(isRefusedWrite(pgError(code))).toBe(true);
  });

  it("is false for a dropped connection, a shutdown, a deadlock, and errors without a SQLSTATE", () => {
    for (const code of ["08006", "57P01", "40001", "40P01", "53300"]) expect(isRefusedWrite(pgError(code))).toBe(false);
    expect(isRefusedWrite(new Error("value out of range 22003"))).toBe(false);
    expect(isRefusedWrite(Object.assign(new Error("x"), { code: "ECONNRESET" }))).toBe(false);
  });

  it("reads the SQLSTATE a Prisma driver adapter carries", () => {
    const error = new DriverAdapterError({
      kind: "ValueOutOfRange",
      cause: "out of range",
      originalCode: "22003",
      originalMessage: "out of range",
    });
    expect(databaseErrorInfo(error)).toEqual({ sqlState: "22003", message: "out of range" });
    expect(isRefusedWrite(error)).toBe(true);
  });
});

describe("isWriteConflict and isRowNotFound", () => {
  it("recognise what baton_write_units raised, and nothing else", () => {
    const conflict = pgError("P0001", "baton_conflict: the plan changed since it was read");
    const missing = pgError("P0001", "baton_not_found: conversation c1 was not found");
    expect([isWriteConflict(conflict), isRowNotFound(conflict)]).toEqual([true, false]);
    expect([isWriteConflict(missing), isRowNotFound(missing)]).toEqual([false, true]);
  });

  it("are false for a message that only quotes a marker", () => {
    // a refused value (or any error that is not a database function's raise) may contain the words
    expect(isWriteConflict(pgError("22P02", "invalid input: baton_conflict"))).toBe(false);
    expect(isRowNotFound(new Error("baton_not_found: conversation c1 was not found"))).toBe(false);
  });
});
