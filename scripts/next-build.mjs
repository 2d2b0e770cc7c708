// Run by `npm run build`: `next build`, its output passed through as it comes, and a build that warns fails, since
// Next reports some real problems (a Node.js API in code compiled for the Edge runtime) only as a warning.
import { spawn } from "node:child_process";

const WARNING = /^\s*(?:⚠|warning\b)|\bbuild encountered \d+ warnings?\b/im;
const child = spawn("next", ["build"], { stdio: ["inherit", "pipe", "pipe"] });
let output = "";
let warned = false;
for (const [stream, sink] of [
  [child.stdout, process.stdout],
  [child.stderr, process.stderr],
]) {
  stream.on("data", (chunk) => {
    sink.write(chunk);
    // A line may arrive in two chunks: the last few kilobytes are kept to be checked with the next one.
    output = (output + chunk.toString()).slice(-4096);
    if (WARNING.test(output)) warned = true;
  });
}
child.on("close", (code, signal) => {
  if (code !== 0) process.exit(code ?? 1);
  if (signal) process.exit(1);
  if (warned) {
    process.stderr.write("next build printed a warning (above): fix its cause; the build counts as failed.\n");
    process.exit(1);
  }
});
