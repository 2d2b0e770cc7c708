import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { OTHER_ROUTE, ROUTES } from "@/lib/api/route";

/** The metrics' route templates (lib/api/route.ts) are exactly the route files of app/api, the catch-all apart. */
const root = path.resolve(import.meta.dirname, "../..");

function routeFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir)).flatMap((name) => {
    const child = `${dir}/${name}`;
    if (statSync(path.join(root, child)).isDirectory()) return routeFiles(child);
    return name === "route.ts" ? [`/${dir}`] : [];
  });
}

describe("metric route templates", () => {
  it("name every route of app/api, and the catch-all as one", () => {
    const routes = routeFiles("app/api").map((route) => route.replace(/^\/app/, ""));
    expect([...ROUTES, OTHER_ROUTE].sort()).toEqual(routes.sort());
  });
});
