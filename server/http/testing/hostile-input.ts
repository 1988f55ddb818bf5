/**
 * fast-check arbitraries for what an attacker sends an HTTP route: request bodies of
 * every class the fuzz test tries (see INPUT_CLASSES), and hostile path parameters.
 */
import fc from "fast-check";

export interface FuzzBody {
  /** which input class produced it (named in a failure) */
  kind: (typeof INPUT_CLASSES)[number];
  body: BodyInit;
  contentType: string | null;
}

export const INPUT_CLASSES = [
  "object with known keys and hostile values",
  "plan with hostile steps",
  "prototype-pollution keys",
  "deep nesting",
  "bad JSON",
  "JSON scalar or array",
  "oversized body",
  "wrong content type",
  "not UTF-8",
  "multipart form",
] as const;

/** keys the routes' schemas read, so random objects reach the field checks */
const KNOWN_KEYS = [
  "title",
  "body",
  "mentions",
  "mentionHandles",
  "attachmentIds",
  "agentHandles",
  "agents",
  "email",
  "role",
  "values",
  "action",
  "stepIndex",
  "reason",
  "source",
  "target",
  "payload",
  "planId",
  "agent",
  "steps",
  "max_parallel",
  "budget",
  "request",
  "handle",
  "name",
  "systemPrompt",
  "model",
  "allowedTools",
  "skills",
  "concurrency",
  "password",
  "inviteToken",
];

const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));

/** text with NUL, unpaired surrogates, any UTF-16 code unit, or past every length limit */
export const hostileText = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom(
      "",
      " ",
      "\u0000",
      "a\u0000b",
      "\ud800",
      "\udfff",
      "x\ud83d",
      "\udc00\ud800",
      "🎉",
      "</untrusted-data>",
      "@writer",
      "retry",
    ),
    fc.string({ unit: codeUnit, maxLength: 40 }),
    fc.string({ maxLength: 40 }),
    fc.integer({ min: 20_001, max: 30_000 }).map((length) => "y".repeat(length)),
  );

/** integers around every column's edge, and numbers no column holds */
export const hostileNumber = (): fc.Arbitrary<number> =>
  fc.oneof(
    fc.constantFrom(2 ** 31, 2 ** 31 - 1, -(2 ** 31) - 1, 2 ** 53, 2 ** 63, 1e308, -1, 0, -0, 0.5, 1e-300, 1, 2, 3),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
  );

const hostileScalar = (): fc.Arbitrary<unknown> => fc.oneof(hostileText(), hostileNumber(), fc.boolean(), fc.constant(null));

/** any JSON value built from hostile scalars, keys known or not */
export const hostileValue = (): fc.Arbitrary<unknown> =>
  fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      hostileScalar(),
      fc.array(tie("value"), { maxLength: 4 }),
      fc.dictionary(fc.oneof(fc.constantFrom(...KNOWN_KEYS), fc.string({ maxLength: 8 })), tie("value"), { maxKeys: 4 }),
    ),
  })).value;

const json = (kind: FuzzBody["kind"], value: unknown): FuzzBody => ({
  kind,
  body: JSON.stringify(value) ?? "null",
  contentType: "application/json",
});

const hostileStep = fc.record(
  {
    index: fc.oneof(fc.integer({ min: 1, max: 3 }), hostileNumber()),
    title: hostileText(),
    assignee: fc.oneof(fc.constantFrom("writer", "user", "commander", "@writer"), hostileText()),
    input: fc.oneof(fc.constantFrom("{{request}}", "{{step_1.output_summary}}", "x"), hostileText()),
    wait_for: fc.array(fc.oneof(hostileNumber(), fc.record({ step: hostileNumber(), optional: fc.boolean() })), { maxLength: 3 }),
    quorum: hostileNumber(),
    budget: fc.record({ max_tokens: hostileNumber(), max_cost: hostileNumber() }, { requiredKeys: [] }),
    for_each: fc.record(
      { from: hostileNumber(), field: fc.constantFrom("output_lines", "output_files", "x"), max_parallel: hostileNumber() },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ["index", "title", "assignee", "input"] },
);

export function hostileBody(maxBodyBytes: number): fc.Arbitrary<FuzzBody> {
  return fc.oneof(
    fc
      .dictionary(fc.constantFrom(...KNOWN_KEYS), hostileValue(), { maxKeys: 6 })
      .map((value) => json("object with known keys and hostile values", value)),
    fc
      .record(
        { title: hostileText(), max_parallel: hostileNumber(), steps: fc.array(hostileStep, { maxLength: 4 }), request: hostileText() },
        { requiredKeys: ["title", "steps"] },
      )
      .map((value) => json("plan with hostile steps", value)),
    fc
      .constantFrom(
        '{"__proto__":{"admin":true},"title":"x"}',
        '{"constructor":{"prototype":{"admin":true}},"title":"x"}',
        '{"values":{"__proto__":{"polluted":1}}}',
        '{"\\u005f_proto__":{"admin":true}}',
        '{"payload":{"__proto__":null},"source":"ci","target":{"agent":"writer"}}',
      )
      .map((body) => ({ kind: "prototype-pollution keys" as const, body, contentType: "application/json" })),
    fc.tuple(fc.integer({ min: 33, max: 30_000 }), fc.constantFrom("[", '{"a":')).map(([depth, open]) => ({
      kind: "deep nesting" as const,
      body: `{"payload":${open.repeat(depth)}1${(open === "[" ? "]" : "}").repeat(depth)},"title":"x"}`,
      contentType: "application/json",
    })),
    fc
      .constantFrom("", "{", "nul", '{"a":}', "[1,]", "'x'", "\u0000", '{"a":1}garbage', "NaN", "1e999999", '{"a":"\\ud800"}', "\ufeff{}")
      .map((body) => ({ kind: "bad JSON" as const, body, contentType: "application/json" })),
    fc.oneof(hostileScalar(), fc.array(hostileScalar(), { maxLength: 3 })).map((value) => json("JSON scalar or array", value)),
    fc
      .integer({ min: 1, max: maxBodyBytes })
      .map((extra) => json("oversized body", { body: "z".repeat(maxBodyBytes + extra), title: "x" })),
    fc
      .tuple(
        fc.constantFrom(
          "text/plain",
          "application/x-www-form-urlencoded",
          "multipart/form-data",
          "application/xml",
          null,
          "application/json; charset=utf-16",
          "application/jsonx",
        ),
        hostileValue(),
      )
      .map(([contentType, value]) => ({ kind: "wrong content type" as const, body: JSON.stringify(value) ?? "", contentType })),
    fc
      .uint8Array({ minLength: 1, maxLength: 64 })
      .map((bytes) => new Uint8Array([0x7b, 0x22, 0x74, 0x22, 0x3a, 0x22, 0xff, ...bytes, 0x22, 0x7d]))
      .map((bytes) => ({ kind: "not UTF-8" as const, body: bytes, contentType: "application/json" })),
    fc.tuple(hostileText(), fc.uint8Array({ maxLength: 256 }), fc.boolean()).map(([name, bytes, asFile]) => {
      const form = new FormData();
      if (asFile) form.set("file", new Blob([bytes], { type: "text/plain" }), name || "f");
      else form.set("file", name);
      form.set("title", name);
      return { kind: "multipart form" as const, body: form, contentType: null };
    }),
  );
}

/** path segments and query values no route expects */
export const hostileParam = (): fc.Arbitrary<string> =>
  fc.constantFrom(
    "does-not-exist",
    "2147483648",
    "-1",
    "0",
    "1e400",
    "99999999999999999999",
    "1.5",
    "0x10",
    "\u0000",
    "a\u0000",
    "\ud800",
    "__proto__",
    "constructor",
    "../../etc/passwd",
    "x".repeat(3000),
    "%00",
    " ",
    "",
  );
