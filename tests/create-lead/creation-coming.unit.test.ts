import { AsyncResource } from "node:async_hooks";
import { EventEmitter } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { creationRouted, type CreationGate } from "@/lib/api/creation-gate";
import methodGuard from "@/lib/api/method-guard.json";
import { shedCreation } from "@/lib/preload/creation-shed.mjs";

/**
 * The preload's count of creations it let through that the route has not yet taken (`coming`, which its gate weighs
 * against the free places): up by one for each let through, down by one when the route takes it or, for one Next
 * answers without the route, when its answer ends; never down twice for one creation.
 */
const GATE = Symbol.for(methodGuard.creationGate);
const globals = globalThis as Record<symbol, unknown>;
let seen: number[] = [];

/** A gate that admits every creation and records the `coming` it is asked with. */
const recording: CreationGate = {
  creates: () => true,
  refusal: (_url, _headers, coming) => {
    seen.push(coming);
    return undefined;
  },
};

interface LetThrough {
  /** The route taking it: creationRouted in the request's own async context, as the route calls it. */
  route: () => void;
  /** Its answer ending (the response's 'close'). */
  close: () => void;
}

/** A POST to lead creation handed to the preload, which lets it through. */
function letThrough(): LetThrough {
  const response = new EventEmitter();
  let route: (() => void) | undefined;
  shedCreation(
    { method: "POST", url: "/api/leads", headers: {} } as IncomingMessage,
    response as ServerResponse,
    () => (route = AsyncResource.bind(() => creationRouted())),
  );
  return { route: route!, close: () => response.emit("close") };
}

/** The `coming` the next creation is weighed with. */
function comingNow(): number {
  seen = [];
  letThrough().close();
  return seen[0];
}

let before: unknown;
beforeAll(() => {
  before = globals[GATE];
  globals[GATE] = recording;
});
afterAll(() => {
  globals[GATE] = before;
});

describe('the creations on their way to the route (docs/decisions.md, "Creation sheds load")', () => {
  it("counts each one let through until the route takes it", () => {
    expect(comingNow()).toBe(0);
    const [first, second] = [letThrough(), letThrough()];
    expect(comingNow()).toBe(2);
    first.route();
    expect(comingNow()).toBe(1);
    second.route();
    expect(comingNow()).toBe(0);
    first.close();
    second.close();
    expect(comingNow()).toBe(0);
  });

  it("stops counting one that Next answers without the route when its answer ends", () => {
    const [answered, waiting] = [letThrough(), letThrough()];
    answered.close();
    expect(comingNow()).toBe(1);
    waiting.close();
    expect(comingNow()).toBe(0);
  });

  it("counts one that the route took and that then ended only once", () => {
    const [taken, waiting] = [letThrough(), letThrough()];
    taken.route();
    taken.route();
    taken.close();
    expect(comingNow()).toBe(1);
    waiting.route();
    waiting.close();
    expect(comingNow()).toBe(0);
  });
});
