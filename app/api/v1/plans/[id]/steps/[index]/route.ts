import { apiActor, HttpError, withApiToken } from "@/server/http/api-v1.ts";

/** A step's detail: its input as rendered, the execution log (with model timings) and every run. */
export async function GET(request: Request, context: { params: Promise<{ id: string; index: string }> }) {
  return withApiToken(
    request,
    async (runtime) => {
      const { id, index } = await context.params;
      const stepIndex = Number(index);
      if (!Number.isInteger(stepIndex) || stepIndex < 1) throw new HttpError(400, "invalid_input", "index: must be a positive integer");
      // a plan outside the API user's conversations is "not found", checked by the service
      return Response.json(await runtime.services.getStepDetail({ actor: apiActor(runtime), planId: id, stepIndex }));
    },
    { params: context.params },
  );
}
