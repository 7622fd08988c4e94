import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadOriginConfig, type Network } from "../config.ts";
import { createDevNode, type DevNode, type DevNodeOptions } from "../devnode/index.ts";
import { type EdgeDev, startEdgeDev } from "./edge-dev.ts";
import { assertPortFree } from "./port-free.ts";
import { type RunningOrigin, startOrigin } from "./start-origin.ts";
import { StopStack } from "./stop-stack.ts";

/**
 * The whole system in one call, shared by `npm start` and the end-to-end test: a dev node (or a
 * real zebrad/zcashd), the origin indexing it into a directory store and serving gRPC/Connect,
 * and the edge under `wrangler dev` reading that same directory (one source of truth).
 */
export interface StartAllOptions {
  /** Root of everything written: `store/` (sealed ranges), `origin-NET/` (tail), `wrangler/`. */
  dataDir: string;
  /** A real node to index; when absent a dev node is started from `dev`. */
  node?: { url: string; network: Network };
  dev?: {
    node: Omit<DevNodeOptions, "port" | "host">;
    /** Blocks mined on top (control API) before indexing starts, so the served run becomes final. */
    mineOnTop?: number;
  };
  /** 0 = any free port. */
  edgePort: number;
  originPort: number;
  /** Origin /metrics, /healthz and the status page; "off" disables it. */
  adminPort: number | "off";
  rangeSize?: number;
  sealDepth?: number;
  fromHeight?: number;
  /** Further `lightedge origin` flags (auth, --concurrency, --log-level …); they win. */
  originArgs?: string[];
  /** Hide wrangler's output (tests). */
  quiet?: boolean;
  /** Environment for the origin's configuration (default process.env). */
  env?: Record<string, string | undefined>;
}

export interface StartedAll {
  network: Network;
  /** Absolute `dataDir`; the directory store is its `store/`. */
  dataDir: string;
  /** The edge: gRPC-web and Connect for browser wallets. */
  edgeUrl: string;
  /** The origin: native gRPC (and Connect) for mobile wallets; the edge's upstream. */
  originUrl: string;
  adminUrl?: string;
  devnode?: DevNode;
  origin: RunningOrigin;
  edge: EdgeDev;
  /** Resolves the first time the origin has caught up with the node and sealed all it can. */
  synced: Promise<void>;
  /** Stops the edge (wrangler and workerd), the origin and the dev node; safe to call twice. */
  close(): Promise<void>;
}

export async function startAll(o: StartAllOptions): Promise<StartedAll> {
  const stops = new StopStack();
  const close = async () => {
    const errors = await stops.close();
    if (errors.length > 0) throw new AggregateError(errors, "lightedge: stopping failed");
  };
  try {
    await assertPortFree(o.edgePort, "127.0.0.1", "edge");
    const devnode = o.node ? undefined : await startDevNode(o);
    if (devnode) stops.push(() => devnode.close());
    const network = o.node?.network ?? devnode!.chain.network;
    const storeDir = resolve(o.dataDir, "store");
    mkdirSync(storeDir, { recursive: true });
    const secret = randomBytes(16).toString("hex");
    const argv = originArgv(o, o.node?.url ?? devnode!.url, network, storeDir, secret);
    const config = loadOriginConfig(argv, o.env ?? process.env);
    // wrangler dev takes seconds to start: it starts as soon as the origin's port is bound,
    // while the origin bootstraps from the store.
    let edgeStarting: Promise<EdgeDev> | undefined;
    const onListening = (originUrl: string) => {
      edgeStarting = startEdgeDev({
        ...{ port: o.edgePort, origin: originUrl, originSecret: secret, networks: network },
        ...{ store: `dir:${storeDir}`, persist: resolve(o.dataDir, "wrangler"), quiet: o.quiet },
      });
      edgeStarting.catch(() => {}); // awaited below; a failure must not be an unhandled rejection
      stops.push(async () => (await edgeStarting!.catch(() => undefined))?.stop());
    };
    const origin = await startOrigin(config, { onListening });
    stops.push(() => origin.close());
    const edge = await edgeStarting!;
    const synced = origin.indexer.synced();
    synced.catch(() => {});
    const urls = { edgeUrl: edge.url, originUrl: origin.url, adminUrl: origin.adminUrl };
    return {
      network,
      dataDir: resolve(o.dataDir),
      ...urls,
      devnode,
      origin,
      edge,
      synced,
      close,
    };
  } catch (err) {
    await stops.close();
    throw err;
  }
}

async function startDevNode(o: StartAllOptions): Promise<DevNode> {
  const dev = await createDevNode({ ...o.dev?.node, port: 0, host: "127.0.0.1" });
  await dev.ready;
  const blocks = o.dev?.mineOnTop ?? 0;
  if (blocks > 0) {
    const res = await fetch(`${dev.url}control/mine`, { method: "POST", body: JSON.stringify({ blocks }) });
    if (!res.ok) throw new Error(`dev node: mining ${blocks} blocks failed with HTTP ${res.status}`);
  }
  return dev;
}

/** `lightedge origin` flags for this composition; the caller's `originArgs` come last and win. */
function originArgv(
  o: StartAllOptions,
  node: string,
  network: Network,
  store: string,
  secret: string,
): string[] {
  const args = ["--node", node, "--network", network, "--store", `dir:${store}`];
  args.push("--data-dir", join(resolve(o.dataDir), `origin-${network}`));
  args.push("--listen", `127.0.0.1:${o.originPort}`, "--secret", secret, "--progress", "off");
  args.push("--admin", o.adminPort === "off" ? "off" : `127.0.0.1:${o.adminPort}`);
  if (o.rangeSize !== undefined) args.push("--range-size", String(o.rangeSize));
  if (o.sealDepth !== undefined) args.push("--seal-depth", String(o.sealDepth));
  if (o.fromHeight !== undefined) args.push("--from", String(o.fromHeight));
  return [...args, ...(o.originArgs ?? [])];
}
