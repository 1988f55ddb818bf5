import { toNextJsHandler } from "better-auth/next-js";
import { getAuth } from "@/server/auth/session.ts";
import { handleAuthRequest } from "@/server/auth/auth-handler.ts";

// Resolved per request: the auth instance needs the runtime's Prisma client.
const handler = (request: Request) => handleAuthRequest(request, (forwarded) => getAuth().handler(forwarded));
export const { GET, POST } = toNextJsHandler(handler);
