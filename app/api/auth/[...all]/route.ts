import { toNextJsHandler } from "better-auth/next-js";
import { getAuth } from "@/server/auth/session.ts";
import { boundBody } from "@/server/http/body.ts";
import { errorResponse } from "@/server/http/errors.ts";
import { handleAuthRequest } from "@/server/auth/auth-handler.ts";

// Resolved per request: the auth instance needs the runtime's Prisma client. The body
// cap applies here as on every route, before better-auth (or its sign-in limiter) reads anything.
const handler = async (request: Request) => {
  let bounded: Request;
  try {
    bounded = await boundBody(request);
  } catch (error) {
    return errorResponse(error);
  }
  return handleAuthRequest(bounded, (forwarded) => getAuth().handler(forwarded));
};
export const { GET, POST } = toNextJsHandler(handler);
