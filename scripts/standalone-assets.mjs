// Run by `npm run build` after `next build`: copies the page assets Next's standalone output leaves to the host into
// .next/standalone, so `node .next/standalone/server.js` serves them as `next start` does.
import { cpSync, existsSync, rmSync } from "node:fs";

const STANDALONE = ".next/standalone";
if (!existsSync(STANDALONE))
  throw new Error(`${STANDALONE} is missing: next.config.mjs must keep output: "standalone"`);
for (const [from, to] of [
  ["public", `${STANDALONE}/public`],
  [".next/static", `${STANDALONE}/.next/static`],
]) {
  rmSync(to, { recursive: true, force: true });
  if (existsSync(from)) cpSync(from, to, { recursive: true }); // this project has no public/ of its own
}
