/**
 * What the browser needs of forms and conversation settings from the core, in one place:
 * the field types, the mask a secret answer is shown as, and the same answer check the
 * server applies (so the form says what is wrong before it is sent). The core is their
 * home; components import them from here only.
 */
export { SECRET_MASK, type FormField, type FormSpec } from "../core/types.ts";
export { FormAnswerError } from "../core/errors.ts";
export { validateFormAnswer } from "../core/form-schema.ts";
export type { CommanderReplyMode } from "../core/addressing.ts";
