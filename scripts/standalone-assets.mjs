// Run by `npm run build` after `next build`: copies what Next's standalone output leaves to
// the host (https://nextjs.org/docs/app/api-reference/config/next-config-js/output) into
// .next/standalone, so that `node .next/standalone/server.js` serves the page assets as
// `next start` does.
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
