/**
 * Models that work before they are saved: an admin's model id is resolved against the
 * providers this server has keys for (a bad id or a missing key is named at once, not
 * later in chat), and can be tried with a one-token call.
 */
import { generateText } from "ai";
import { ModelConfigurationError, type ModelRegistry } from "./model-registry.ts";
import { describeError } from "./retry.ts";
import type { ModelTrial } from "../protocol/rest/admin.ts";
import { truncateText } from "../core/text.ts";

/** Why `modelId` cannot be used on this server, or null when it can. */
export function modelProblem(models: Pick<ModelRegistry, "resolve">, modelId: string): string | null {
  try {
    models.resolve(modelId);
    return null;
  } catch (error) {
    if (error instanceof ModelConfigurationError) return error.message;
    throw error;
  }
}

/** One tiny call to the model, with a time limit; says what came back or what went wrong. */
export async function tryModel(input: {
  models: Pick<ModelRegistry, "resolve">;
  modelId: string;
  timeoutMs?: number;
}): Promise<ModelTrial> {
  const problem = modelProblem(input.models, input.modelId);
  if (problem) return { ok: false, error: problem };
  const started = performance.now();
  try {
    const result = await generateText({
      model: input.models.resolve(input.modelId),
      prompt: "Reply with the single word: ok",
      maxOutputTokens: 8,
      maxRetries: 0,
      abortSignal: AbortSignal.timeout(input.timeoutMs ?? 20_000),
    });
    return { ok: true, latencyMs: Math.round(performance.now() - started), reply: truncateText(result.text.trim(), 200) };
  } catch (error) {
    return { ok: false, error: `${input.modelId}: ${describeError(error)}` };
  }
}
