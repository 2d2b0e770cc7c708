// Run by `npm run build`: `next build`, its output passed through as it comes, and a build that warns fails, since
// Next reports some real problems (a Node.js API in code compiled for the Edge runtime) only as a warning.
import { spawn } from "node:child_process";
import { ABOUT_THE_MACHINE } from "./build-notices.mjs";

const WARNING = /^\s*(?:⚠|warning\b)|\bbuild encountered \d+ warnings?\b/i;
const child = spawn("next", ["build"], { stdio: ["inherit", "pipe", "pipe"] });
let warned = false;
for (const [stream, sink] of /** @type {[import("node:stream").Readable, NodeJS.WriteStream][]} */ ([
  [child.stdout, process.stdout],
  [child.stderr, process.stderr],
])) {
  let partial = "";
  const check = (/** @type {string} */ line) => {
    if (WARNING.test(line) && !ABOUT_THE_MACHINE.test(line)) warned = true;
  };
  stream.on("data", (chunk) => {
    sink.write(chunk);
    const lines = (partial + chunk.toString()).split("\n");
    partial = (lines.pop() ?? "").slice(-4096);
    lines.forEach(check);
  });
  stream.on("end", () => check(partial));
}
child.on("close", (code, signal) => {
  if (code !== 0) process.exit(code ?? 1);
  if (signal) process.exit(1);
  if (warned) {
    process.stderr.write("next build printed a warning (above): fix its cause; the build counts as failed.\n");
    process.exit(1);
  }
});
