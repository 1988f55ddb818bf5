"use client";
import {
  Controls,
  Handle,
  MiniMap,
  Position,
  ReactFlow,
  useReactFlow,
  type Edge,
  type Node,
  type NodeProps,
  type ReactFlowInstance,
} from "@xyflow/react";
import { memo, useCallback, useEffect, useMemo, useRef, useState, type FocusEvent } from "react";
import type { PlanDTO, StepDTO } from "@/server/protocol/dto.ts";
import {
  MIN_ZOOM,
  NODE_HEIGHT,
  NODE_WIDTH,
  chooseLayout,
  defaultViewport,
  dependencyEdges,
  fitZoom,
  READABLE_ZOOM,
} from "./plan-layout.ts";
import { PlanLegend } from "./plan-legend.tsx";
import { VISUAL_STYLE, formatDuration, retryStatus, stepVisualState, type StepVisualState } from "./step-status.ts";
import { useNow } from "./use-now.ts";
import { useStepRunStatus } from "./use-run-status.ts";
import { plainText } from "./plain-text.ts";
import { useTranslations } from "next-intl";

type StepNodeData = { step: StepDTO; planId: string; vertical: boolean; onOpen: (index: number) => void };
type StepNode = Node<StepNodeData, "step">;

/** Minimap fill per visual state (the minimap draws plain SVG, not Tailwind classes). */
const MINIMAP_FILL: Record<StepVisualState, string> = {
  queued: "#d4d4d8",
  running: "#0ea5e9",
  waiting: "#f59e0b",
  retrying: "#f97316",
  done: "#10b981",
  failed: "#ef4444",
  skipped: "#a1a1aa",
};

const StepNodeView = memo(function StepNodeView({ id, data }: NodeProps<StepNode>) {
  const { step, planId, vertical, onOpen } = data;
  const t = useTranslations("plan");
  const flow = useReactFlow();
  const runStatus = useStepRunStatus(planId, step.index);
  const state = stepVisualState(step);
  const look = VISUAL_STYLE[state];
  // running and waiting steps' elapsed time ticks, and so does a retry's countdown; a finished step's is fixed
  const live = ((step.status === "in_progress" || step.status === "blocked") && !step.endedAt) || state === "retrying";
  const now = useNow(live);
  const duration = formatDuration(step.startedAt, step.endedAt, now);
  const retry = retryStatus(step, now);
  const retrying = retry ? t("retryLine", { ...retry }) : null;

  // a step reached with Tab may be outside the view: bring it in, at the current zoom
  const reveal = (event: FocusEvent<HTMLButtonElement>) => {
    const pane = event.currentTarget.closest(".react-flow")?.getBoundingClientRect();
    const box = event.currentTarget.getBoundingClientRect();
    if (!pane || (box.left >= pane.left && box.right <= pane.right && box.top >= pane.top && box.bottom <= pane.bottom)) return;
    const zoom = flow.getZoom();
    void flow.fitView({ nodes: [{ id }], minZoom: zoom, maxZoom: zoom, duration: 150 });
  };

  const who = step.assignee === "user" ? t("aPerson") : step.assignee === "commander" ? t("theCommander") : `@${step.assignee}`;
  const note = runStatus && step.status === "in_progress" ? runStatus : retrying ? retrying : (step.failureReason ?? null);
  const summary = step.outputSummary ? plainText(step.outputSummary) : "";
  // compact, every line fits its node; on hover or focus the card grows over its neighbours to show all of it
  const open =
    "group-hover:whitespace-normal group-hover:line-clamp-none group-focus-within:whitespace-normal group-focus-within:line-clamp-none";

  return (
    <div
      data-testid="plan-step"
      data-index={step.index}
      data-status={step.status}
      data-state={state}
      style={{ width: NODE_WIDTH, height: NODE_HEIGHT }}
      className="group relative text-left text-xs leading-snug"
    >
      <Handle
        type="target"
        position={vertical ? Position.Top : Position.Left}
        className="!h-1.5 !w-1.5 !border-0 !bg-zinc-400"
        isConnectable={false}
      />
      <button
        type="button"
        onClick={() => onOpen(step.index)}
        onFocus={reveal}
        aria-label={t("stepButton", { index: step.index, title: step.title, who, status: step.status })}
        className={`nodrag pointer-events-auto absolute inset-x-0 top-0 flex min-h-full max-h-full w-full flex-col overflow-hidden rounded-lg border-2 px-2.5 py-1.5 text-left shadow-sm group-hover:max-h-none group-hover:shadow-lg group-focus-within:max-h-none group-focus-within:shadow-lg ${look.node} ${state === "running" ? "animate-soft-pulse" : ""}`}
      >
        <span className="flex items-start gap-1.5">
          <span className="font-mono text-zinc-600 dark:text-zinc-400">{step.index}</span>
          <span
            className={`line-clamp-2 min-w-0 flex-1 break-words text-[13px] font-semibold text-zinc-900 dark:text-zinc-100 ${open}`}
            data-testid="step-title"
            title={step.title}
          >
            {step.title}
          </span>
        </span>
        <span className="flex min-w-0 items-baseline gap-1.5">
          <span className={`min-w-0 flex-1 truncate text-zinc-700 dark:text-zinc-300 ${open}`} data-testid="step-assignee">
            {who}
          </span>
          {duration ? (
            <span
              className="shrink-0 tabular-nums text-zinc-600 dark:text-zinc-400"
              data-testid="step-elapsed"
              data-live={live ? "true" : undefined}
            >
              {duration}
            </span>
          ) : null}
        </span>
        <span data-testid="step-state" className="truncate font-medium text-zinc-800 dark:text-zinc-200">
          <span aria-hidden="true">{look.mark} </span>
          {t(`stepState.${state}`)}
          {/* on the state's line, so the node keeps its height */}
          {step.hedge ? (
            <span
              className="font-normal text-violet-800 dark:text-violet-300"
              data-testid="step-hedge"
              data-racing={step.hedge.racing ? "true" : undefined}
              title={t("hedgeHint")}
            >
              {" · "}
              {t(step.hedge.racing ? "hedgeRacing" : "hedged", { model: step.hedge.model })}
            </span>
          ) : null}
        </span>
        <span className="hidden flex-wrap gap-x-2 text-zinc-600 group-hover:flex group-focus-within:flex dark:text-zinc-400">
          {step.quorum ? <span title={t("quorumHint")}>{t("quorum", { quorum: step.quorum, total: step.waitFor.length })}</span> : null}
          {step.effort === "light" || step.effort === "deep" ? (
            <span title={t("effortHint")} data-testid="step-effort-badge">
              {t("effort", { effort: step.effort })}
            </span>
          ) : null}
          {step.forEach ? (
            <span title={t("forEachHint", { step: step.forEach.from })}>
              {t("forEach")}
              {step.forEach.children.length ? ` · ${step.forEach.children.length}` : ""}
            </span>
          ) : null}
          {step.attempts > 1 ? <span>{t("attempt", { count: step.attempts })}</span> : null}
          {step.outputFiles.length ? <span>{t("files", { count: step.outputFiles.length })}</span> : null}
        </span>
        {note ? (
          <span
            className={`truncate ${open} ${runStatus && step.status === "in_progress" ? "text-amber-800 dark:text-amber-300" : retrying ? "text-orange-800 dark:text-orange-300" : "text-red-700 dark:text-red-300"}`}
            data-testid={runStatus && step.status === "in_progress" ? "step-run-status" : retrying ? "step-retry-status" : "step-failure"}
            title={step.failureReason ?? undefined}
          >
            {note}
          </span>
        ) : summary ? (
          <span
            className={`truncate text-zinc-700 group-hover:line-clamp-6 group-hover:whitespace-normal group-focus-within:line-clamp-6 group-focus-within:whitespace-normal dark:text-zinc-300`}
            data-testid="step-summary"
          >
            {summary}
          </span>
        ) : null}
      </button>
      <Handle
        type="source"
        position={vertical ? Position.Bottom : Position.Right}
        className="!h-1.5 !w-1.5 !border-0 !bg-zinc-400"
        isConnectable={false}
      />
    </div>
  );
});

const nodeTypes = { step: StepNodeView };

/** Whether the page is in the dark theme (a class on <html>), kept current when it changes. */
function useDarkTheme(): boolean {
  const [dark, setDark] = useState(false);
  useEffect(() => {
    const root = document.documentElement;
    const read = () => setDark(root.classList.contains("dark"));
    read();
    const observer = new MutationObserver(read);
    observer.observe(root, { attributes: true, attributeFilter: ["class"] });
    return () => observer.disconnect();
  }, []);
  return dark;
}

/** The size of an element, kept current as it resizes. */
function useSize(ref: React.RefObject<HTMLElement | null>): { width: number; height: number } | null {
  const [size, setSize] = useState<{ width: number; height: number } | null>(null);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const observer = new ResizeObserver(([entry]) => {
      const { width, height } = entry.contentRect;
      setSize((old) => (old && Math.abs(old.width - width) < 1 && Math.abs(old.height - height) < 1 ? old : { width, height }));
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [ref]);
  return size;
}

export function PlanGraph({ plan, onOpenStep }: { plan: PlanDTO; onOpenStep: (index: number) => void }) {
  const t = useTranslations("plan");
  const box = useRef<HTMLDivElement>(null);
  const size = useSize(box);
  const dark = useDarkTheme();
  const flow = useRef<ReactFlowInstance<StepNode, Edge> | null>(null);
  const shape = plan.steps.map((s) => `${s.index}:${s.waitFor.join(",")}:${s.parentIndex ?? ""}`).join(";");
  const panel = size ?? { width: 480, height: 480 };
  // the panel's shape picks the direction; round it so a pixel of resize does not re-layout
  const panelKey = `${Math.round(panel.width / 40)}x${Math.round(panel.height / 40)}`;
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const layout = useMemo(() => chooseLayout(plan.steps, panel), [shape, panelKey]);
  const overflows = fitZoom(layout, panel) < READABLE_ZOOM;

  const nodes = useMemo<StepNode[]>(
    () =>
      plan.steps.map((step) => ({
        id: String(step.index),
        type: "step",
        position: layout.positions.get(step.index) ?? { x: 0, y: 0 },
        data: { step, planId: plan.id, vertical: layout.direction === "TB", onOpen: onOpenStep },
        // the button inside is the one Tab stop of a step
        focusable: false,
        ariaRole: "group",
      })),
    [plan.steps, plan.id, layout, onOpenStep],
  );
  const edges = useMemo<Edge[]>(
    () =>
      dependencyEdges(plan.steps).map(({ from, to, optional, collects }) => {
        const source = plan.steps.find((s) => s.index === from);
        const target = plan.steps.find((s) => s.index === to);
        const live = source?.status === "done" && target?.status === "in_progress";
        // optional dependencies dashed: their failure does not hold the step; collection dotted
        const dash = collects ? "1 3" : optional ? "4 3" : undefined;
        return {
          id: `${from}-${to}`,
          source: String(from),
          target: String(to),
          animated: live,
          focusable: false,
          selectable: false,
          ariaLabel: collects ? t("edgeCollects", { from, to }) : t("edgeWaits", { from, to }),
          style: dash ? { strokeWidth: 1.5, strokeDasharray: dash } : { strokeWidth: 1.5 },
        };
      }),
    [plan.steps, t],
  );

  // open at a readable zoom whenever the plan's shape or the panel's size changes
  const fit = useCallback(() => {
    if (!flow.current || !size) return;
    void flow.current.setViewport(defaultViewport(layout, size));
  }, [layout, size]);
  useEffect(fit, [fit]);

  return (
    <div className="flex h-full min-h-[22rem] w-full flex-col" data-testid="plan-graph" data-direction={layout.direction}>
      <PlanLegend />
      <div ref={box} className="relative min-h-0 flex-1" role="group" aria-label={t("graphLabel", { title: plan.title })}>
        <ReactFlow
          nodes={nodes}
          edges={edges}
          nodeTypes={nodeTypes}
          colorMode={dark ? "dark" : "light"}
          onInit={(instance) => {
            flow.current = instance;
            fit();
          }}
          nodesDraggable={false}
          nodesConnectable={false}
          nodesFocusable={false}
          edgesFocusable={false}
          elementsSelectable={false}
          onNodeClick={(_event, node) => onOpenStep(Number(node.id))}
          proOptions={{ hideAttribution: true }}
          minZoom={MIN_ZOOM}
          maxZoom={2}
          panOnScroll
          style={{ background: "transparent" }}
        >
          <Controls showInteractive={false} position="bottom-left" fitViewOptions={{ padding: 0.05, minZoom: MIN_ZOOM }} />
          {overflows ? (
            <MiniMap
              pannable
              zoomable
              position="bottom-right"
              ariaLabel={t("minimap")}
              nodeColor={(node) => MINIMAP_FILL[stepVisualState((node.data as StepNodeData).step)]}
              nodeStrokeWidth={0}
              className="!h-[120px] !w-[150px]"
              data-testid="plan-minimap"
            />
          ) : null}
        </ReactFlow>
      </div>
    </div>
  );
}
