import * as vega from "vega";
import * as vegaLite from "vega-lite";
import type { ListFigures } from "./list";
import type { PostFigures } from "./post";

/** What the chart shows of a run's result (bench/report.ts). */
interface Charted {
  post: Record<string, PostFigures>;
  list: Record<string, ListFigures>;
  measuredAt: string;
  machine: string;
}

/** Two panels: POST throughput against connections, and list latency against table size. */
export async function renderChart(result: Charted): Promise<string> {
  const post = Object.entries(result.post).flatMap(([connections, p]) =>
    (
      [
        ["service", p.serviceRps],
        ["framework floor", p.floorRps],
        ["floor + creation statement", p.floorWithStatementRps],
        ["bare node:http + pg", p.bareRps],
        ["database (pg, no HTTP)", p.databaseRps],
      ] as const
    ).map(([series, rps]) => ({ connections: Number(connections), series, rps })),
  );
  const list = Object.entries(result.list).flatMap(([size, l]) => [
    { leads: Number(size), series: "all sources", p50: l.p50Ms },
    { leads: Number(size), series: "one source", p50: l.filteredP50Ms },
  ]);
  const spec: vegaLite.TopLevelSpec = {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: `Lead intake benchmark, ${result.measuredAt.slice(0, 10)}, ${result.machine}`,
    hconcat: [
      panel(
        "POST /api/leads throughput",
        post,
        { field: "connections", type: "quantitative", scale: { type: "log", base: 2 }, title: "connections" },
        { field: "rps", type: "quantitative", scale: { type: "log" }, title: "requests per second" },
      ),
      panel(
        "GET /api/leads first page (limit 100)",
        list,
        { field: "leads", type: "quantitative", scale: { type: "log" }, title: "leads stored" },
        { field: "p50", type: "quantitative", title: "p50 latency (ms)" },
      ),
    ],
  };
  const view = new vega.View(vega.parse(vegaLite.compile(spec).spec), { renderer: "none" });
  return view.toSVG();
}

type Axis = { field: string; type: "quantitative"; scale?: { type: "log"; base?: number }; title: string };

/** One line chart of `values` by series. */
function panel(title: string, values: object[], x: Axis, y: Axis) {
  return {
    title,
    data: { values },
    mark: { type: "line", point: true },
    width: 320,
    height: 220,
    encoding: { x, y, color: { field: "series", type: "nominal", title: null } },
  } as const;
}
