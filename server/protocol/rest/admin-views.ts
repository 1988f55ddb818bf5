/**
 * What the admin pages hand their client components (usage, provider health, a plan's
 * timeline): the browser imports these types from here, never from services/ or agents/.
 * The read models that build them live in server/services/admin-*.ts.
 */
export type { ProviderCircuitView } from "../../agents/circuit-breaker.ts";
export type { ProviderHealth } from "../../services/admin-providers.ts";
export type { Usage, UsageRow } from "../../services/admin-usage.ts";
export type { PlanTimeline, TimelineStep } from "../../services/admin-plans.ts";
export type { SegmentKind, TimelineSegment } from "../../services/admin-timeline.ts";
