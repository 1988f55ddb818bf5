import { toNextJsHandler } from "better-auth/next-js";
import { getAuth } from "@/server/auth/session.ts";

// Resolved per request: the auth instance needs the runtime's Prisma client.
const handler = (request: Request) => getAuth().handler(request);
export const { GET, POST } = toNextJsHandler(handler);
