// Fewer trips to the database thread for the same protocol conversation.
//
// PGlite's BasePGlite runs one parameterised query as six protocol calls, each awaited:
// Parse, Describe statement, Bind, Describe portal, Execute, then Sync (and exec as Query,
// then Sync). In-thread each call is a function call; across threads each is a message
// each way, a few tens of µs of main-thread work apiece — more than a small statement
// costs to run. The backend does not need them one at a time (the extended protocol is
// made to be pipelined), and BasePGlite uses the replies of only some of them at once:
//   - Parse, Bind and Describe portal are held and sent with the next message; their calls
//     return no messages, and their replies come back with that next call's. BasePGlite
//     only concatenates those replies into the query's results, in the same order, and
//     an error in them surfaces one call later, still inside the same try/catch.
//   - Execute and Query go out with a Sync appended; the ReadyForQuery answering it is kept
//     and returned by the Sync call that BasePGlite always makes next (in a finally).
// So a query is two trips (Parse+Describe, then Bind…Sync) and an exec one, and a query
// whose text was seen before is one: BasePGlite uses the Describe statement's reply only
// for the parameters' types (never in its results), so that reply is kept by the Parse
// message's bytes (text and declared types) and answered from memory, the Parse held and
// sent with Bind…Sync, and its ParseComplete taken out of that reply so the results are
// the same messages as before. A round trip to the thread costs about 0.25 ms here, so
// that is a quarter of a step's statement. The kept replies are dropped whenever a simple
// Query other than BEGIN, COMMIT and their kind runs (migrations, scripts: what may change
// a table's columns) or any reply holds an error, and their number is bounded. This is

// written for BasePGlite's call pattern (@electric-sql/pglite 0.5.17, dist/chunk-UYHX356B's
// #runQuery, #runExec, #runDescribeQuery); a caller driving execProtocolStream by hand
// with Execute not followed by Sync would see the Sync happen early.

import { messages, protocol, type PGlite } from "@electric-sql/pglite";

export type BackendMessage = Awaited<ReturnType<PGlite["execProtocolStream"]>>[number];
export type ExecProtocolOptions = NonNullable<Parameters<PGlite["execProtocol"]>[1]>;

const code = (letter: string) => letter.charCodeAt(0);
const PARSE = code("P");
const BIND = code("B");
const DESCRIBE = code("D");
const PORTAL = code("P");
const STATEMENT = code("S");
const EXECUTE = code("E");
const QUERY = code("Q");
const SYNC = code("S");
const SYNC_MESSAGE = protocol.serialize.sync();
/** kept Describe replies, at most (Prisma's statements are a few hundred texts) */
const MAX_DESCRIBED = 1_000;

export class ProtocolPipeline {
  #held: Uint8Array[] = [];
  /** the answer to a Sync sent early, for the Sync call that follows */
  #earlySync: BackendMessage[] | null = null;
  /** Describe-statement replies by the bytes of the Parse they followed */
  readonly #described = new Map<string, BackendMessage[]>();
  /** the held Parse's key, while it waits for its Describe */
  #parseKey: string | null = null;
  /** a held Parse went out unanswered: its ParseComplete leads the next reply */
  #dropParseComplete = false;
  /** trips to the backend (for tests) */
  trips = 0;

  /**
   * One protocol call of BasePGlite: `send` carries bytes to the backend and returns its
   * raw reply. Returns the call's messages with PGlite's execProtocolStream semantics.
   */
  async call(
    message: Uint8Array,
    options: ExecProtocolOptions,
    send: (bytes: Uint8Array) => Promise<Uint8Array>,
  ): Promise<BackendMessage[]> {
    const earlySync = this.#earlySync;
    this.#earlySync = null;
    if (earlySync && isSingle(message, SYNC)) return collectMessages(earlySync, options);
    const parse = isSingle(message, PARSE);
    if (parse || isSingle(message, BIND) || (isSingle(message, DESCRIBE) && message[5] === PORTAL)) {
      this.#parseKey = parse && this.#held.length === 0 ? keyOf(message) : null;
      this.#held.push(message);
      return [];
    }
    // the held Parse's key when this describes it (null otherwise)
    const key = isSingle(message, DESCRIBE) && message[5] === STATEMENT ? this.#parseKey : null;
    this.#parseKey = null;
    const known = key === null ? undefined : this.#described.get(key);
    if (known) {
      // the Parse stays held and goes out with Bind…Sync; its ParseComplete comes back then
      this.#dropParseComplete = true;
      return collectMessages(known, options);
    }
    if (isSingle(message, QUERY) && !controlsTransaction(message)) this.#described.clear();
    const withSync = isSingle(message, EXECUTE) || isSingle(message, QUERY);
    const dropParseComplete = this.#dropParseComplete;
    const replies = parseMessages(await send(this.outgoing(message, withSync ? [SYNC_MESSAGE] : [])));
    if (dropParseComplete && replies[0]?.name === "parseComplete") replies.shift();
    if (replies.some((reply) => reply instanceof messages.DatabaseError)) this.#described.clear();
    else if (key !== null) {
      if (this.#described.size >= MAX_DESCRIBED) this.#described.clear();
      this.#described.set(key, replies);
    }
    if (withSync && replies.at(-1) instanceof messages.ReadyForQueryMessage) this.#earlySync = [replies.pop()!];
    return collectMessages(replies, options);
  }

  /** `message` preceded by whatever is held (a raw call after a held one must not overtake it). */
  outgoing(message: Uint8Array, after: Uint8Array[] = []): Uint8Array {
    const parts = [...this.#held, message, ...after];
    this.#held = [];
    this.#earlySync = null;
    this.#dropParseComplete = false;
    this.trips += 1;
    return parts.length === 1 ? message : concat(parts);
  }
}

/** BEGIN, COMMIT and their kind change no table: every transaction runs them as scripts. */
const TRANSACTION_CONTROL = /^\s*(BEGIN|START TRANSACTION|COMMIT|END|ROLLBACK|ABORT|SAVEPOINT|RELEASE|SET TRANSACTION)\b[^;]*;?\s*$/i;

function controlsTransaction(query: Uint8Array): boolean {
  // 'Q', an int32 length, the text, a NUL
  return TRANSACTION_CONTROL.test(Buffer.from(query.buffer, query.byteOffset + 5, query.byteLength - 6).toString("utf8"));
}

/** A Parse message as a map key: its bytes (statement name, text, declared types). */
function keyOf(message: Uint8Array): string {
  return Buffer.from(message.buffer, message.byteOffset, message.byteLength).toString("latin1");
}

/** Exactly one protocol message, of type `type` (a byte, then an int32 length that counts itself). */
function isSingle(message: Uint8Array, type: number): boolean {
  if (message[0] !== type || message.length < 5) return false;
  return new DataView(message.buffer, message.byteOffset, message.byteLength).getInt32(1) === message.length - 1;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const bytes = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.length;
  }
  return bytes;
}

/** Every backend message in a reply, by PGlite's own protocol parser. */
export function parseMessages(data: Uint8Array): BackendMessage[] {
  const all: BackendMessage[] = [];
  new protocol.Parser().parse(data, (message) => all.push(message));
  return all;
}

/**
 * The messages of one call as PGlite's execProtocolStream returns them: the first
 * DatabaseError is thrown (once the reply has been read to its end), messages after it
 * are dropped, notices go to `onNotice`.
 */
export function collectMessages(all: BackendMessage[], { throwOnError = true, onNotice }: ExecProtocolOptions): BackendMessage[] {
  const results: BackendMessage[] = [];
  for (const message of all) {
    if (message instanceof messages.DatabaseError) {
      results.push(message);
      if (throwOnError) throw message;
      continue;
    }
    if (message instanceof messages.NoticeMessage) onNotice?.(message);
    results.push(message);
  }
  return results;
}
