import { apiActor, withApiToken } from "@/server/http/api-v1.ts";
import { intParam } from "@/server/http/params.ts";

/** A step's detail: its input as rendered, the execution log (with model timings) and every run. */
export async function GET(request: Request, context: { params: Promise<{ id: string; index: string }> }) {
  return withApiToken(
    request,
    async (runtime) => {
      const { id, index } = await context.params;
      // bounded by the column that holds it, like every integer from a URL
      const stepIndex = intParam(index, { name: "index", min: 1 });
      // a plan outside the API user's conversations is "not found", checked by the service
      return Response.json(await runtime.services.getStepDetail({ actor: apiActor(runtime), planId: id, stepIndex }));
    },
    { params: context.params },
  );
}
