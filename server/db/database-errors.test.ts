import { describe, expect, it } from "vitest";
import { DriverAdapterError } from "@prisma/driver-adapter-utils";
import {
  databaseErrorInfo,
  isRefusedWrite,
  isRolledBackForConflict,
  isRowNotFound,
  isTransientDatabaseError,
  isWriteConflict,
} from "./database-errors.ts";

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
  it("recognise the SQLSTATEs Baton's functions raise, from the driver or through Prisma's adapter", () => {
    expect([isWriteConflict(pgError("ZB409")), isRowNotFound(pgError("ZB409"))]).toEqual([true, false]);
    expect([isWriteConflict(pgError("ZB404")), isRowNotFound(pgError("ZB404"))]).toEqual([false, true]);
    const wrapped = new DriverAdapterError({
      kind: "postgres",
      code: "ZB409",
      severity: "ERROR",
      message: "changed",
      detail: undefined,
      column: undefined,
      hint: undefined,
    });
    expect(isWriteConflict(wrapped)).toBe(true);
  });

  it("never go by the message: a plain raise or a refused value quoting the words is neither", () => {
    expect(isWriteConflict(pgError("P0001", "baton_conflict: the plan changed since it was read"))).toBe(false);
    expect(isRowNotFound(pgError("22P02", "invalid input: ZB404"))).toBe(false);
    expect(isWriteConflict(new Error("ZB409"))).toBe(false);
  });
});

describe("isRolledBackForConflict and isTransientDatabaseError", () => {
  it("a deadlock or a serialization failure was rolled back: run it again", () => {
    for (const code of ["40P01", "40001"]) {
      expect(isRolledBackForConflict(pgError(code))).toBe(true);
      expect(isTransientDatabaseError(pgError(code))).toBe(true);
    }
  });

  it("a dropped connection or a shutdown may pass later, but is no rolled-back conflict", () => {
    for (const code of ["08006", "57P01", "53300"]) {
      expect(isRolledBackForConflict(pgError(code))).toBe(false);
      expect(isTransientDatabaseError(pgError(code))).toBe(true);
    }
  });

  it("neither for a refused write, Baton's own conflict, or an error without a SQLSTATE", () => {
    for (const error of [
      pgError("23505"),
      pgError("ZB409"),
      new Error("deadlock detected 40P01"),
      Object.assign(new Error("x"), { code: "40P01" }),
    ]) {
      expect(isRolledBackForConflict(error)).toBe(false);
      expect(isTransientDatabaseError(error)).toBe(false);
    }
  });
});
