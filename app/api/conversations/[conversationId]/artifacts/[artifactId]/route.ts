import { handle, requireMember } from "@/server/auth/guards.ts";
import { getRuntime } from "@/server/runtime.ts";

type Context = { params: Promise<{ conversationId: string; artifactId: string }> };

/** Images and plain text may show inline; everything else downloads. Never rendered as HTML. */
const INLINE_TYPES = /^(image\/(png|jpeg|gif|webp)|text\/plain)$/;

export const GET = handle(async (request: Request, context: Context) => {
  const { conversationId, artifactId } = await context.params;
  const actor = await requireMember(request, conversationId);
  const artifact = await getRuntime().app.conversations.readArtifact({ actor, conversationId, artifactId });
  const inline = INLINE_TYPES.test(artifact.mediaType) && new URL(request.url).searchParams.get("download") !== "1";
  const type = artifact.mediaType.startsWith("text/") ? "text/plain; charset=utf-8" : artifact.mediaType;
  return new Response(Buffer.from(artifact.content), {
    headers: {
      "Content-Type": inline ? type : "application/octet-stream",
      "Content-Disposition": `${inline ? "inline" : "attachment"}; filename*=UTF-8''${encodeURIComponent(artifact.name)}`,
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'; sandbox",
      "Cache-Control": "private, max-age=3600",
    },
  });
});
