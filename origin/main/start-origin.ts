import pino, { type Logger } from "pino";
import { Registry } from "prom-client";
import { createIndexMetrics } from "../admin/index-metrics.ts";
import { type AdminServer, startAdminServer } from "../admin/server.ts";
import { type OriginConfig, storeEnv } from "../config.ts";
import { type Indexer, indexerFromConfig, nodeClientFromConfig } from "../index/index.ts";
import type { NodeClient } from "../node/index.ts";
import { createOriginServer, createServeMetrics, type OriginServer } from "../serve/index.ts";
import { renderStatusPage } from "../status/status-page.ts";
import { createStatusRecorder } from "../status/status-recorder.ts";
import { openStore } from "../store/index.ts";
import type { TreeStateStart } from "../treestate/index.ts";
import { createTreeStateWiring, type TreeStateWiring } from "../treestate/wiring.ts";
import { createOriginStatusSource, type OriginStatusSource } from "./status-source.ts";
import { StopStack } from "./stop-stack.ts";

export interface StartOriginOptions {
  /** LightdInfo.donationAddress. */
  donationAddress?: string;
  /** Default: pino JSON at config.logLevel. */
  log?: Logger;
  /** A node client to use (not closed by `close()`); default: one from config.node. */
  nodeClient?: NodeClient;
  /** Called once the RPC port is bound, before the indexer bootstraps from the store. */
  onListening?: (url: string) => void;
  /** Tree states: true = hash from the index's start however far the node's tip (default: regtest or a synthetic dev chain). */
  syntheticChain?: boolean;
  /** Test hook: the frontier the tree-state producer starts from (instead of store/node/genesis). */
  treeStart?: TreeStateStart;
  /** false: no tree-state worker (GetTreeState from the node, as `lightedge index`); benchmarks' baseline. */
  treeStates?: boolean;
}

export interface RunningOrigin {
  /** The RPC server (gRPC, gRPC-web, Connect). */
  url: string;
  /** /metrics, /healthz and the status page (/ and /status); undefined when config.admin is off. */
  adminUrl?: string;
  indexer: Indexer;
  server: OriginServer;
  /** The tree-state worker: `settled(h)` resolves once states through h are computed and stored. */
  treeStates: Pick<TreeStateWiring, "settled" | "coveredFrom" | "computedThrough">;
  /** Stops serving, indexing and the admin port; idempotent. */
  close(): Promise<void>;
}

/**
 * The whole origin in one call (what `lightedge origin` and `npm start` run): node client, store,
 * indexer with the tree-state producer in its hooks, the RPC server with stored tree states, and
 * the admin server with the status page. Everything it starts, `close()` stops: no signal
 * handlers, no timers left behind, so a process may start and close several.
 */
export async function startOrigin(
  config: Readonly<OriginConfig>,
  options: StartOriginOptions = {},
): Promise<RunningOrigin> {
  const parts = assembleOrigin(config, options);
  const { log, node, indexer, trees, withTrees } = parts;
  const stops = new StopStack((err) => log.warn({ err }, "origin: error while stopping"));
  const close = async () => {
    await stops.close();
  };
  stops.push(() => (options.nodeClient ? undefined : node.close()));
  try {
    const server = await listenRpc(config, options, parts);
    stops.push(
      () => indexer.stop(),
      () => trees.close(),
      () => server.close(),
    );
    options.onListening?.(server.url);
    const recorder = createStatusRecorder(parts.status, config.network);
    stops.push(() => recorder.stop());
    let admin: AdminServer | undefined;
    if (config.admin) {
      const page = () => renderStatusPage(recorder.history());
      admin = await startAdminServer({
        ...config.admin,
        registry: parts.registry,
        health: { index: () => indexer.health() },
        pages: { "/": page, "/status": page },
      });
      stops.push(() => admin!.close());
    }
    log.info({ url: server.url, admin: admin?.url, tls: config.tls !== undefined }, "origin listening");
    // Bootstrap (store head, tail log) then follow in the background; the RPC port already
    // answers, with Unavailable for blocks until the first block is served.
    await indexer.start();
    if (withTrees) void trees.begin(indexer.view);
    return { url: server.url, adminUrl: admin?.url, indexer, server, treeStates: trees, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** The origin's parts, wired and not yet started (nothing listens, nothing is fetched). */
interface OriginParts {
  log: Logger;
  node: NodeClient;
  registry: Registry;
  status: OriginStatusSource;
  trees: TreeStateWiring;
  withTrees: boolean;
  indexer: Indexer;
}

function assembleOrigin(config: Readonly<OriginConfig>, options: StartOriginOptions): OriginParts {
  const log =
    options.log ??
    pino({ level: config.logLevel, base: { service: "lightedge-origin", network: config.network } });
  const node = options.nodeClient ?? nodeClientFromConfig(config);
  const store = openStore(config.store, storeEnv(config));
  const registry = new Registry();
  let indexer: Indexer | undefined;
  const status = createOriginStatusSource(() => indexer!.status(), config.rangeSize);
  const withTrees = options.treeStates !== false;
  const trees = createTreeStateWiring({
    store,
    network: config.network,
    rangeSize: config.rangeSize,
    node,
    log,
    registry,
    synthetic: options.syntheticChain,
    start: options.treeStart,
    onEvent: status.note,
  });
  indexer = indexerFromConfig(config, {
    node,
    store,
    log,
    metrics: createIndexMetrics(registry),
    hooks: {
      onAppend(blocks) {
        status.appended(blocks[blocks.length - 1]!.height);
        if (withTrees) trees.hooks.onAppend?.(blocks);
      },
      onRollback(height) {
        status.rolledBack(height);
        if (withTrees) trees.hooks.onRollback?.(height);
      },
      rangeObjects: withTrees ? trees.hooks.rangeObjects : undefined,
    },
  });
  return { log, node, registry, status, trees, withTrees, indexer };
}

/** The RPC server (gRPC, gRPC-web, Connect) over the indexer's view and the node. */
function listenRpc(
  config: Readonly<OriginConfig>,
  options: StartOriginOptions,
  { log, node, registry, status, trees, withTrees, indexer }: OriginParts,
): Promise<OriginServer> {
  return createOriginServer({
    chain: indexer.view,
    node,
    network: config.network,
    secrets: config.secrets,
    ping: config.ping,
    donationAddress: options.donationAddress,
    treeStates: withTrees ? trees.service : undefined,
    history: indexer.history,
    log: (rpc, err) => log.error({ rpc, err }, "rpc failed"),
    observer: status.countRequests(createServeMetrics(registry)),
    listen: { host: config.listen.host, port: config.listen.port, tls: config.tls },
  });
}
