import { apiActor, withApiToken } from "@/server/http/api-v1.ts";
import { respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";

export async function GET(request: Request, context: { params: Promise<{ id: string }> }) {
  return withApiToken(
    request,
    async (runtime) => {
      const { id } = await context.params;
      // a plan outside the API user's conversations is "not found", checked by the service
      return respond(routes.v1.plan, await runtime.services.getPlan({ actor: apiActor(runtime), planId: id }));
    },
    { params: context.params },
  );
}
