// The edge worker's bundle under Miniflare directly (one workerd, no wrangler dev proxy in front),
// reading the same local R2 state `wrangler dev --persist-to DIR` uses. Its own process, so the
// bench reads its CPU time (this Node process + its workerd) from /proc.
// Usage: node bench/edge-miniflare-server.ts BUNDLE_DIR PERSIST_DIR [VARS_JSON]; prints the URL.
import { readFileSync } from "node:fs";
import { join } from "node:path";
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
const toml = readWranglerToml(readFileSync(new URL("../wrangler.toml", import.meta.url), "utf8"));
const vars = { ...toml.vars, ...(varsJson ? (JSON.parse(varsJson) as Record<string, string>) : {}) };
// With STORE_PUBLIC_URL the worker reads a separate store server (Worker-alone mode): no R2 binding,
// since the binding would win (edge/store/create-object-reader.ts).
const r2Buckets = vars.STORE_PUBLIC_URL
  ? {}
  : Object.fromEntries(toml.r2_buckets.map((b) => [b.binding, { id: b.bucket_name }]));
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
        compatibilityDate: toml.compatibility_date,
        compatibilityFlags: toml.compatibility_flags,
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

/**
 * The deployment's own settings (compatibility, [vars], the R2 binding and bucket id) from
 * wrangler.toml, as wrangler dev passes them. A line-level reading of the simple shapes that file
 * uses (no TOML parser is installed at the top level).
 */
function readWranglerToml(text: string) {
  const str = (re: RegExp) => re.exec(text)?.[1];
  const vars: Record<string, string> = {};
  const varsSection = /^\[vars\]\n([\s\S]*?)(?=^\[)/m.exec(text)?.[1] ?? "";
  for (const m of varsSection.matchAll(/^([A-Z0-9_]+) = "(.*)"$/gm)) vars[m[1]!] = m[2]!;
  const flags = str(/^compatibility_flags = \[(.*)\]$/m) ?? "";
  const binding = str(/^binding = "(.*)"$/m);
  const bucket = str(/^bucket_name = "(.*)"$/m);
  return {
    compatibility_date: str(/^compatibility_date = "(.*)"$/m) ?? "2026-11-01",
    compatibility_flags: [...flags.matchAll(/"([^"]+)"/g)].map((m) => m[1]!),
    vars,
    r2_buckets: binding && bucket ? [{ binding, bucket_name: bucket }] : [],
  };
}
