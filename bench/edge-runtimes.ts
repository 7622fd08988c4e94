// The local runtimes the edge bench can run the worker under, each reading the same local R2 state:
//   wrangler        `wrangler dev` (what `lightedge edge` runs): a proxy workerd in front of the
//                   worker's workerd, so every byte crosses two processes
//   miniflare       the worker bundled as `wrangler deploy` would (`--dry-run --outdir`), run by
//                   Miniflare directly: one workerd, as close to a deployed Worker as runs offline
//   miniflare=DIR   the same with a bundle built earlier (e.g. a before/after comparison)
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { startEdgeDev } from "../origin/main/edge-dev.ts";

export interface EdgeRuntime {
  name: string;
  url: string;
  /** Every server-side process (for CPU time from /proc). */
  pids(): number[];
  /** wrangler dev's proxy workerd, which a deployed Worker does not have. */
  proxyPid?: number;
  stop(): Promise<void>;
}

const repoRoot = new URL("../", import.meta.url).pathname;

/** Settings both runtimes get, as `lightedge edge` passes them to wrangler dev with --var. */
export interface EdgeRuntimeOptions {
  origin?: string;
  originSecret?: string;
  networks?: string;
  /**
   * Miniflare only: read the store from this public base URL (STORE_PUBLIC_URL, a separate server
   * process) instead of the local R2 simulator, so the runtime's CPU is the Worker's own.
   */
  storePublicUrl?: string;
  /** Miniflare only: more worker vars (`{ CACHE_HOT_RANGES: "off" }`: no Cache API layer). */
  vars?: Record<string, string>;
  /**
   * Miniflare only: open the V8 inspector of the worker's isolate on this port
   * (bench/lib/isolate-inspector.ts), for its heap or a CPU profile.
   */
  inspectorPort?: number;
}

export async function startEdgeRuntime(
  spec: string,
  persist: string,
  o: EdgeRuntimeOptions = {},
): Promise<EdgeRuntime> {
  if (spec === "wrangler") {
    const edge = await startEdgeDev({ port: 0, persist, quiet: true, ...o });
    return {
      name: "wrangler",
      url: edge.url,
      pids: () => processTree(edge.child.pid!),
      proxyPid: listenerPid(Number(new URL(edge.url).port)),
      stop: () => edge.stop(),
    };
  }
  if (spec === "miniflare" || spec.startsWith("miniflare=")) {
    const given = spec.startsWith("miniflare=") ? spec.slice("miniflare=".length) : undefined;
    const bundle = given ?? buildBundle();
    const child = spawn(
      process.execPath,
      [new URL("./edge-miniflare-server.ts", import.meta.url).pathname, bundle, persist, varsJson(o)],
      {
        stdio: ["ignore", "pipe", "inherit"],
        env:
          o.inspectorPort === undefined
            ? process.env
            : { ...process.env, EDGE_INSPECTOR_PORT: String(o.inspectorPort) },
      },
    );
    const url = await new Promise<string>((resolve, reject) => {
      child.once("exit", (code) => reject(new Error(`miniflare exited with ${code}`)));
      child.stdout!.once("data", (d) => resolve(String(d).trim()));
    });
    return {
      name: given ? `mf:${basename(given)}` : "miniflare",
      url,
      pids: () => processTree(child.pid!),
      async stop() {
        if (child.exitCode === null) {
          child.kill("SIGTERM");
          await new Promise((r) => child.once("exit", r));
        }
        if (given === undefined) rmSync(bundle, { recursive: true, force: true });
      },
    };
  }
  throw new Error(`unknown runtime ${spec} (wrangler, miniflare, miniflare=BUNDLE_DIR)`);
}

/** The same [vars] overrides startEdgeDev passes to wrangler dev. */
function varsJson(o: EdgeRuntimeOptions): string {
  const vars: Record<string, string> = {};
  if (o.origin) vars.ORIGIN_URL = o.origin;
  if (o.originSecret) vars.ORIGIN_SECRET = o.originSecret;
  if (o.networks) vars.NETWORKS = o.networks;
  if (o.storePublicUrl) vars.STORE_PUBLIC_URL = o.storePublicUrl;
  return JSON.stringify({ ...vars, ...o.vars });
}

/** The worker bundled offline exactly as `wrangler deploy` would upload it. */
export function buildBundle(outdir = mkdtempSync(join(tmpdir(), "lightedge-edge-bundle-"))): string {
  execFileSync(
    process.execPath,
    [join(repoRoot, "node_modules/wrangler/bin/wrangler.js"), "deploy", "--dry-run", "--outdir", outdir],
    { cwd: repoRoot, stdio: "ignore", env: { ...process.env, WRANGLER_SEND_METRICS: "false" } },
  );
  return outdir;
}

/** The process listening on a port (under wrangler dev: its proxy workerd, not the edge). */
function listenerPid(port: number): number | undefined {
  try {
    const line = execFileSync("ss", ["-ltnpH", `sport = :${port}`], { encoding: "utf8" });
    return Number(/pid=(\d+)/.exec(line)?.[1]) || undefined;
  } catch {
    return undefined;
  }
}

/** A process and all its descendants (wrangler / Miniflare run workerd as a child). */
export function processTree(root: number): number[] {
  const parents = new Map<number, number>();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      parents.set(Number(d), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {}
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [pid, ppid] of parents) if (ppid === out[i]) out.push(pid);
  return out;
}
