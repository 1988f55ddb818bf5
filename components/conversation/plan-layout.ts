/**
 * Where the plan graph's steps go and how the graph is first shown: a layered layout
 * (top-to-bottom or left-to-right, whichever fits the panel better) and a default
 * viewport that never shrinks the text below a readable size; what does not fit is
 * reached by panning, zooming or the minimap.
 */
import dagre from "@dagrejs/dagre";
import type { StepDTO } from "@/server/protocol/dto.ts";

// narrow enough that two ranks side by side (a fan and its synthesis) fit a 390 px phone at zoom 1
export const NODE_WIDTH = 160;
export const NODE_HEIGHT = 100;
/** The smallest zoom the graph opens at: node text is 12 px or more at this zoom. */
export const READABLE_ZOOM = 1;
/** The largest zoom the graph opens at: a two-step plan is not blown up. */
export const MAX_FIT_ZOOM = 1.25;
/** How far a person may zoom out by hand (text then reads as an overview only). */
export const MIN_ZOOM = 0.15;
const PADDING = 12;

export type Direction = "TB" | "LR";
export type Point = { x: number; y: number };
export type Layout = { direction: Direction; positions: Map<number, Point>; width: number; height: number };

/**
 * Every edge to draw: each step's dependencies, and for a for_each step's children an
 * edge from the child to the step that collects it (the parent waits for them).
 */
export function dependencyEdges(steps: readonly StepDTO[]): { from: number; to: number; optional: boolean; collects: boolean }[] {
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

/** A layered layout of the DAG in one direction, positions at nodes' top-left corners. */
export function layoutPlan(steps: readonly StepDTO[], direction: Direction): Layout {
  const graph = new dagre.graphlib.Graph();
  graph.setGraph({ rankdir: direction, nodesep: 20, ranksep: 28, marginx: 0, marginy: 0 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const step of steps) graph.setNode(String(step.index), { width: NODE_WIDTH, height: NODE_HEIGHT });
  for (const edge of dependencyEdges(steps)) graph.setEdge(String(edge.from), String(edge.to));
  dagre.layout(graph);
  const positions = new Map<number, Point>();
  for (const step of steps) {
    const node = graph.node(String(step.index)) as { x: number; y: number };
    positions.set(step.index, { x: node.x - NODE_WIDTH / 2, y: node.y - NODE_HEIGHT / 2 });
  }
  // Mirroring keeps every crossing count; do it when it puts lower step numbers first in a rank.
  const across = direction === "TB" ? "x" : "y";
  const along = direction === "TB" ? "y" : "x";
  let score = 0;
  for (const a of steps)
    for (const b of steps)
      if (a.index < b.index && positions.get(a.index)![along] === positions.get(b.index)![along])
        score += Math.sign(positions.get(b.index)![across] - positions.get(a.index)![across]);
  if (score < 0) {
    const far = Math.max(...[...positions.values()].map((p) => p[across]));
    for (const [index, p] of positions) positions.set(index, { ...p, [across]: far - p[across] });
  }
  const all = [...positions.values()];
  const minX = Math.min(0, ...all.map((p) => p.x));
  const minY = Math.min(0, ...all.map((p) => p.y));
  for (const [index, p] of positions) positions.set(index, { x: p.x - minX, y: p.y - minY });
  const width = all.length ? Math.max(...[...positions.values()].map((p) => p.x)) + NODE_WIDTH : 0;
  const height = all.length ? Math.max(...[...positions.values()].map((p) => p.y)) + NODE_HEIGHT : 0;
  return { direction, positions, width, height };
}

/** The zoom at which a graph of this size fits the panel whole (uncapped). */
export function fitZoom(graph: { width: number; height: number }, panel: { width: number; height: number }): number {
  if (graph.width <= 0 || graph.height <= 0) return MAX_FIT_ZOOM;
  return Math.min((panel.width - 2 * PADDING) / graph.width, (panel.height - 2 * PADDING) / graph.height);
}

/**
 * Top-to-bottom unless left-to-right shows more of the plan at a readable size: a
 * wide fan of parallel steps reads better as a column in a tall, narrow panel.
 */
export function chooseLayout(steps: readonly StepDTO[], panel: { width: number; height: number }): Layout {
  const down = layoutPlan(steps, "TB");
  const across = layoutPlan(steps, "LR");
  const score = (layout: Layout) => {
    const zoom = fitZoom(layout, panel);
    // how much of the graph is readable in the first view: all of it when it fits at READABLE_ZOOM
    const shown = zoom >= READABLE_ZOOM ? 1 : Math.min(1, panel.width / layout.width) * Math.min(1, panel.height / layout.height);
    return shown + Math.min(zoom, MAX_FIT_ZOOM) / 100;
  };
  return score(across) > score(down) ? across : down;
}

/**
 * The viewport the graph opens at: the whole graph centred when it fits at a readable
 * zoom; otherwise READABLE_ZOOM, anchored at the start of the plan (top, and left when
 * it is wider than the panel) so step 1 is in view.
 */
export function defaultViewport(
  graph: { width: number; height: number },
  panel: { width: number; height: number },
): { x: number; y: number; zoom: number } {
  const zoom = Math.max(READABLE_ZOOM, Math.min(MAX_FIT_ZOOM, fitZoom(graph, panel)));
  // whole pixels: a node at a fractional offset is drawn blurred and reads as a sliver outside the panel
  const place = (room: number, size: number) => (size * zoom + 2 * PADDING <= room ? Math.floor((room - size * zoom) / 2) : PADDING);
  return { x: place(panel.width, graph.width), y: place(panel.height, graph.height), zoom };
}
