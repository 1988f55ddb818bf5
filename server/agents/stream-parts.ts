/**
 * The parts of a `streamText` call, as `result.fullStream` yields them, read without
 * the copy fullStream makes.
 *
 * Every read of fullStream tees the result's internal stream (`baseStream`, whose chunks
 * are `{ part, partialOutput }`) and maps one branch through two more TransformStreams;
 * the other branch replaces the internal stream and buffers every part of the call
 * until the result is dropped, because nothing else reads it. A run reads the parts
 * once and uses no other stream of the result, so it reads the internal stream itself:
 * the same parts in the same order, errors and the abort part included. That is a
 * third of the streams Node builds for a model call (a measured ~20 % of a run's CPU).
 *
 * `baseStream` is not public API. When a release of the SDK no longer has it in this
 * shape, this falls back to fullStream (correct, only slower), and a unit test
 * (stream-parts.test.ts) fails so that someone looks.
 */
import type { TextStreamPart, ToolSet } from "ai";

type Part = TextStreamPart<ToolSet>;
/** what this module needs of a StreamTextResult */
type Streamed = { readonly fullStream: AsyncIterable<Part> };
type Internal = { baseStream?: unknown };

/** Whether `result` has the internal stream this module reads (exported for its test). */
export function hasInternalStream(result: Streamed): boolean {
  // by shape, not instanceof: a polyfilled global ReadableStream must not turn the fast path off
  const base = (result as unknown as Internal).baseStream as Partial<ReadableStream> | null | undefined;
  return typeof base?.getReader === "function" && base.locked === false;
}

/** The parts of the call, read once; breaking out of the loop cancels the stream. */
export function streamParts(result: Streamed): AsyncIterable<Part> {
  if (!hasInternalStream(result)) return result.fullStream;
  const base = (result as unknown as { baseStream: ReadableStream<{ part: Part } | Part> }).baseStream;
  return {
    [Symbol.asyncIterator]() {
      const reader = base.getReader();
      let finished = false;
      const finish = async (): Promise<IteratorReturnResult<undefined>> => {
        if (!finished) {
          finished = true;
          // as fullStream's iterator does: cancel (a no-op on a closed stream), then let go
          try {
            await reader.cancel();
          } finally {
            reader.releaseLock();
          }
        }
        return { done: true, value: undefined };
      };
      return {
        async next(): Promise<IteratorResult<Part>> {
          if (finished) return { done: true, value: undefined };
          const { done, value } = await reader.read();
          if (done) return finish();
          // a part has no `part` key: should a release hold bare parts there, they pass as they are
          return { done: false, value: "part" in value ? value.part : value };
        },
        return: finish,
      };
    },
  };
}
