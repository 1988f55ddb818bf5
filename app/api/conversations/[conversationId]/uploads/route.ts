import { enforceRate, handle, HttpError, requireMember } from "@/server/auth/guards.ts";
import { UPLOAD_RATE } from "@/server/auth/rate-limit.ts";
import { respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";
import { getRuntime } from "@/server/runtime.ts";
import { MAX_UPLOAD_BYTES } from "@/server/protocol/limits.ts";
import { truncateText, withoutBidiControls } from "@/server/core/text.ts";

type Context = { params: Promise<{ conversationId: string }> };

export const POST = handle(async (request: Request, context: Context) => {
  const { conversationId } = await context.params;
  const user = await requireMember(request, conversationId);
  enforceRate(`upload:${user.id}`, UPLOAD_RATE);
  // the declared length was checked against the uploads' cap by handle(), before sign-in
  const form = await request.formData().catch(() => {
    throw new HttpError(400, "invalid_input", "Send the file as multipart/form-data.");
  });
  const file = form.get("file");
  if (!(file instanceof File)) throw new HttpError(400, "invalid_input", "file: missing");
  if (file.size > MAX_UPLOAD_BYTES) throw tooLarge();
  // control characters and path separators never reach a stored file name, nor a
  // bidirectional override that would show another extension than the real one
  // eslint-disable-next-line no-control-regex -- see above
  const name = truncateText(withoutBidiControls(file.name).replace(/[\\/\u0000-\u001f]/g, "_"), 200) || "file";
  const mediaType = /^[\w.+-]+\/[\w.+-]+$/.test(file.type) ? file.type : "application/octet-stream";
  const bytes = new Uint8Array(await file.arrayBuffer());
  const artifact = await getRuntime().app.conversations.saveUpload({ actor: user, conversationId, name, mediaType, bytes });
  return respond(routes.conversations.upload, { attachment: artifact });
});

function tooLarge() {
  return new HttpError(413, "too_large", `Files can be at most ${MAX_UPLOAD_BYTES / 1024 / 1024} MB.`);
}
