/** Words the server's messages and the browser share (the browser imports from protocol only). */
export { plural } from "../core/plural.ts";
