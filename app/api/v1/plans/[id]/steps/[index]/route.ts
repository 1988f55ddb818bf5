import { apiActor, withApiToken } from "@/server/http/api-v1.ts";
import { intParam } from "@/server/http/params.ts";
import { respond } from "@/server/http/route-spec.ts";
import { routes } from "@/server/protocol/rest/index.ts";

/** A step's detail: its input as rendered, the execution log (with model timings) and every run. */
export async function GET(request: Request, context: { params: Promise<{ id: string; index: string }> }) {
  return withApiToken(
    request,
    async (runtime) => {
      const { id, index } = await context.params;
      // bounded by the column that holds it, like every integer from a URL
      const stepIndex = intParam(index, { name: "index", min: 1 });
      // a plan outside the API user's conversations is "not found", checked by the service
      return respond(routes.v1.stepDetail, await runtime.services.getStepDetail({ actor: apiActor(runtime), planId: id, stepIndex }));
    },
    { params: context.params },
  );
}
