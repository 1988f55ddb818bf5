"use client";
import dagre from "@dagrejs/dagre";
import { Handle, Position, ReactFlow, type Edge, type Node, type NodeProps } from "@xyflow/react";
import { memo, useMemo } from "react";
import type { PlanDTO, StepDTO } from "@/server/protocol/dto.ts";
import { Badge } from "../ui/badge.tsx";
import { STEP_STYLE, formatDuration, retryStatusLine } from "./step-status.ts";
import { useNow } from "./use-now.ts";
import { useStepRunStatus } from "./use-run-status.ts";

const NODE_WIDTH = 190;
const NODE_HEIGHT = 88;

type StepNodeData = { step: StepDTO; planId: string; onOpen: (index: number) => void };
type StepNode = Node<StepNodeData, "step">;

/**
 * Every edge to draw: each step's dependencies, and for a for_each step's children an
 * edge from the child to the step that collects it (the parent waits for them).
 */
function dependencyEdges(steps: StepDTO[]): { from: number; to: number; optional: boolean; collects: boolean }[] {
  const known = new Set(steps.map((s) => s.index));
  const edges = steps.flatMap((step) =>
    step.waitFor
      .filter((upstream) => known.has(upstream))
      .map((upstream) => ({
        from: upstream,
        to: step.index,
        optional: step.optionalWaitFor?.includes(upstream) ?? false,
        collects: false,
      })),
  );
  for (const step of steps) {
    if (step.parentIndex !== null && step.parentIndex !== undefined && known.has(step.parentIndex)) {
      edges.push({ from: step.index, to: step.parentIndex, optional: false, collects: true });
    }
  }
  return edges;
}

/** Top-to-bottom layered layout of the DAG; recomputed only when its shape changes. */
function layout(steps: StepDTO[]): Map<number, { x: number; y: number }> {
  const graph = new dagre.graphlib.Graph();
  graph.setGraph({ rankdir: "TB", nodesep: 24, ranksep: 40, marginx: 8, marginy: 8 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const step of steps) graph.setNode(String(step.index), { width: NODE_WIDTH, height: NODE_HEIGHT });
  for (const edge of dependencyEdges(steps)) graph.setEdge(String(edge.from), String(edge.to));
  dagre.layout(graph);
  const positions = new Map<number, { x: number; y: number }>();
  for (const step of steps) {
    const node = graph.node(String(step.index)) as { x: number; y: number };
    positions.set(step.index, { x: node.x - NODE_WIDTH / 2, y: node.y - NODE_HEIGHT / 2 });
  }
  // Mirroring keeps every crossing count; do it when it puts lower step numbers on the left.
  let score = 0;
  for (const a of steps)
    for (const b of steps)
      if (a.index < b.index && positions.get(a.index)!.y === positions.get(b.index)!.y)
        score += Math.sign(positions.get(b.index)!.x - positions.get(a.index)!.x);
  if (score < 0) {
    const right = Math.max(...[...positions.values()].map((p) => p.x));
    for (const [index, p] of positions) positions.set(index, { x: right - p.x, y: p.y });
  }
  return positions;
}

const StepNodeView = memo(function StepNodeView({ data }: NodeProps<StepNode>) {
  const { step, planId, onOpen } = data;
  const runStatus = useStepRunStatus(planId, step.index);
  const style = STEP_STYLE[step.status];
  // a running step's time ticks, and so does a retry's countdown; a finished step's is fixed
  const now = useNow((step.status === "in_progress" && !step.endedAt) || (step.status === "pending" && step.retryAt !== null));
  const duration = formatDuration(step.startedAt, step.endedAt, now);
  const retrying = retryStatusLine(step, now);
  return (
    <div
      data-testid="plan-step"
      data-index={step.index}
      data-status={step.status}
      style={{ width: NODE_WIDTH, height: NODE_HEIGHT }}
      className={`rounded-lg border-2 px-2.5 py-2 text-left text-xs shadow-sm ${style.node} ${step.status === "in_progress" ? "animate-soft-pulse" : ""}`}
    >
      <Handle type="target" position={Position.Top} className="!h-1.5 !w-1.5 !border-0 !bg-zinc-400" isConnectable={false} />
      <button
        type="button"
        onClick={() => onOpen(step.index)}
        aria-label={`Step ${step.index}: ${step.title}, ${style.label}. Open details`}
        className="nodrag pointer-events-auto flex h-full w-full flex-col gap-1 text-left focus-visible:outline-2 focus-visible:outline-accent"
      >
        <span className="flex items-center gap-1.5">
          <span className="font-mono text-zinc-500">{step.index}</span>
          <span className="min-w-0 flex-1 truncate font-semibold text-zinc-900 dark:text-zinc-100">{step.title}</span>
        </span>
        <span className="flex flex-wrap items-center gap-1">
          <span className="text-zinc-600 dark:text-zinc-400">
            {step.assignee === "user" || step.assignee === "commander" ? step.assignee : `@${step.assignee}`}
          </span>
          <Badge tone={style.tone}>{style.label}</Badge>
        </span>
        <span className="flex gap-2 text-[11px] text-zinc-500">
          {step.quorum ? (
            <span title="starts once this many inputs succeeded">
              any {step.quorum} of {step.waitFor.length}
            </span>
          ) : null}
          {step.forEach ? (
            <span title={`runs once per item of step ${step.forEach.from}`}>
              for each{step.forEach.children.length ? ` · ${step.forEach.children.length} items` : ""}
            </span>
          ) : null}
          {step.attempts > 1 ? <span>attempt {step.attempts}</span> : null}
          {duration ? <span>{duration}</span> : null}
          {step.outputFiles.length ? <span>{step.outputFiles.length} file(s)</span> : null}
        </span>
        {runStatus && step.status === "in_progress" ? (
          <span className="truncate text-[11px] text-amber-700 dark:text-amber-400" data-testid="step-run-status">
            {runStatus}
          </span>
        ) : retrying ? (
          <span
            className="truncate text-[11px] text-amber-700 dark:text-amber-400"
            data-testid="step-retry-status"
            title={step.failureReason ?? undefined}
          >
            {retrying}
          </span>
        ) : step.failureReason ? (
          <span className="truncate text-[11px] text-red-600 dark:text-red-400">{step.failureReason}</span>
        ) : null}
        {!step.failureReason && step.outputSummary ? (
          <span className="truncate text-[11px] text-zinc-600 dark:text-zinc-400">{step.outputSummary}</span>
        ) : null}
      </button>
      <Handle type="source" position={Position.Bottom} className="!h-1.5 !w-1.5 !border-0 !bg-zinc-400" isConnectable={false} />
    </div>
  );
});

const nodeTypes = { step: StepNodeView };

export function PlanGraph({ plan, onOpenStep }: { plan: PlanDTO; onOpenStep: (index: number) => void }) {
  const shape = plan.steps.map((s) => `${s.index}:${s.waitFor.join(",")}:${s.parentIndex ?? ""}`).join(";");
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const positions = useMemo(() => layout(plan.steps), [shape]);
  const nodes = useMemo<StepNode[]>(
    () =>
      plan.steps.map((step) => ({
        id: String(step.index),
        type: "step",
        position: positions.get(step.index) ?? { x: 0, y: 0 },
        data: { step, planId: plan.id, onOpen: onOpenStep },
      })),
    [plan.steps, plan.id, positions, onOpenStep],
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
          style: dash ? { strokeWidth: 1.5, strokeDasharray: dash } : { strokeWidth: 1.5 },
        };
      }),
    [plan.steps],
  );
  const height = Math.min(520, Math.max(180, Math.max(...[...positions.values()].map((p) => p.y), 0) + NODE_HEIGHT + 40));
  return (
    <div style={{ height }} className="w-full" aria-label={`Plan graph: ${plan.title}`} role="group">
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        fitView
        fitViewOptions={{ padding: 0.15, maxZoom: 1 }}
        nodesDraggable={false}
        nodesConnectable={false}
        elementsSelectable={false}
        onNodeClick={(_event, node) => onOpenStep(Number(node.id))}
        proOptions={{ hideAttribution: true }}
        minZoom={0.3}
        style={{ background: "transparent" }}
      />
    </div>
  );
}
