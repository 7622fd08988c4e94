// The edge worker's bundle under Miniflare directly (one workerd, no wrangler dev proxy in front),
// reading the same local R2 state `wrangler dev --persist-to DIR` uses. Its own process, so the
// bench reads its CPU time (this Node process + its workerd) from /proc.
// Usage: node bench/edge-miniflare-server.ts BUNDLE_DIR PERSIST_DIR [VARS_JSON]; prints the URL.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { wranglerNames } from "../infra/check/names.ts";
// wrangler's own Miniflare (the one `wrangler dev` runs), so both runtimes use the same workerd.
import {
  convertV4MiniflareOptions,
  Miniflare,
} from "../node_modules/wrangler/node_modules/miniflare/dist/src/index.js";

const [bundleDir, persist, varsJson] = process.argv.slice(2);
if (bundleDir === undefined || persist === undefined) {
  process.stderr.write("usage: node bench/edge-miniflare-server.ts BUNDLE_DIR PERSIST_DIR [VARS_JSON]\n");
  process.exit(2);
}
// The deployment's own settings (compatibility, [vars], the R2 binding and bucket id), as wrangler
// dev passes them.
const toml = wranglerNames(readFileSync(new URL("../wrangler.toml", import.meta.url), "utf8"));
const vars = {
  ...Object.fromEntries(toml.varValues),
  ...(varsJson ? (JSON.parse(varsJson) as Record<string, string>) : {}),
};
// With STORE_PUBLIC_URL the worker reads a separate store server (Worker-alone mode): no R2 binding,
// since the binding would win (edge/store/create-object-reader.ts).
const r2Buckets = vars.STORE_PUBLIC_URL
  ? {}
  : Object.fromEntries([...toml.bucketNames].map(([binding, bucket]) => [binding, { id: bucket }]));
const direct = process.env.EDGE_MINIFLARE_ENTRY !== "1";
const mf = new Miniflare(
  convertV4MiniflareOptions({
    host: "127.0.0.1",
    port: 0,
    logRequests: false,
    // bench/edge-profile.ts: the V8 inspector of the worker's isolate, for a CPU profile.
    ...(process.env.EDGE_INSPECTOR_PORT ? { inspectorPort: Number(process.env.EDGE_INSPECTOR_PORT) } : {}),
    // wrangler dev keeps its local state under <persist>/v3 and keys a bucket by its bucket_name.
    resourcePersistencePath: join(persist, "v3"),
    workers: [
      {
        name: "lightedge-edge",
        modules: true,
        modulesRoot: bundleDir,
        scriptPath: join(bundleDir, "index.js"),
        compatibilityDate: toml.compatibilityDate,
        compatibilityFlags: toml.compatibilityFlags,
        bindings: vars,
        r2Buckets,
        // The worker's own socket, without Miniflare's entry worker in front (a second isolate
        // every request crosses in workerd, which a deployed Worker does not have); the entry URL
        // stays available with EDGE_MINIFLARE_ENTRY=1.
        ...(direct ? { unsafeDirectSockets: [{ host: "127.0.0.1", port: 0 }] } : {}),
      },
    ],
  }),
);
const entry = await mf.ready;
const url = direct ? await mf.unsafeGetDirectURL("lightedge-edge") : entry;
process.stdout.write(`${url.origin}\n`);
const stop = () => void mf.dispose().then(() => process.exit(0));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
