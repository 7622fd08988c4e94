/**
 * Test support: a real stack (dev node → node client → indexer → origin server) on ephemeral
 * ports, and connect-node clients for each protocol. Used by the origin/serve tests and bench.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Client, createClient, type Interceptor, type Transport } from "@connectrpc/connect";
import {
  createConnectTransport,
  createGrpcTransport,
  createGrpcWebTransport,
} from "@connectrpc/connect-node";
import pino from "pino";
import { CompactTxStreamer } from "../../proto/index.ts";
import { createDevNode, type DevNode } from "../devnode/index.ts";
import { createIndexer, type Indexer } from "../index/index.ts";
import { createNodeClient, type NodeClient } from "../node/index.ts";
import { createDirectoryStore } from "../store/index.ts";
import type { OriginServiceOptions } from "./context.ts";
import { createOriginServer, type OriginServer } from "./origin-server.ts";

export interface Stack {
  dev: DevNode;
  node: NodeClient;
  indexer: Indexer;
  server: OriginServer;
  /** POST /control/<path> on the dev node. */
  control(path: string, body?: Record<string, unknown>): Promise<unknown>;
  /** Resolves once the served tip reaches `height`. */
  waitForTip(height: number): Promise<void>;
  close(): Promise<void>;
}

export interface StackOptions extends Partial<Omit<OriginServiceOptions, "chain" | "node" | "network">> {
  blocks?: number;
  seed?: string;
  tls?: { cert: string; key: string };
}

/** Range size and seal depth small enough that a short chain has sealed ranges and a tail. */
export const TEST_RANGE_SIZE = 10;
export const TEST_SEAL_DEPTH = 12;

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const dev = await createDevNode({
    synthetic: { blocks: options.blocks ?? 60, seed: options.seed ?? "serve" },
  });
  await dev.ready;
  const node = createNodeClient({ url: dev.url, retries: 0, timeoutMs: 5000 });
  const dir = mkdtempSync(join(tmpdir(), "lightedge-serve-"));
  const indexer = createIndexer({
    chain: node,
    info: node,
    store: createDirectoryStore(join(dir, "store")),
    network: "regtest",
    dataDir: join(dir, "data"),
    rangeSize: TEST_RANGE_SIZE,
    sealDepth: TEST_SEAL_DEPTH,
    concurrency: 4,
    fromHeight: 0,
    pollMs: 50,
    log: pino({ level: "silent" }),
  });
  await indexer.start();
  await indexer.synced();
  const server = await createOriginServer({
    ...options,
    chain: indexer.view,
    node,
    network: "regtest",
    listen: { host: "127.0.0.1", port: 0, tls: options.tls },
  });
  const control = async (path: string, body: Record<string, unknown> = {}) => {
    const res = await fetch(new URL(`control/${path}`, dev.url), {
      method: "POST",
      body: JSON.stringify(body),
    });
    return res.json();
  };
  const waitForTip = async (height: number) => {
    for (let i = 0; i < 400 && (indexer.view.tip()?.height ?? -1) < height; i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    if ((indexer.view.tip()?.height ?? -1) < height) throw new Error(`tip did not reach ${height}`);
  };
  return {
    dev,
    node,
    indexer,
    server,
    control,
    waitForTip,
    close: async () => {
      await server.close();
      await indexer.stop();
      node.close();
      await dev.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type ProtocolName = "grpc" | "grpc-web" | "connect";
export const PROTOCOLS: readonly ProtocolName[] = ["grpc", "grpc-web", "connect"];

/** A transport per protocol: gRPC over HTTP/2 (always, in connect-node), gRPC-web and Connect over HTTP/1.1. */
export function transportFor(
  protocol: ProtocolName,
  baseUrl: string,
  extra: { ca?: string; headers?: Record<string, string>; httpVersion?: "1.1" | "2" } = {},
): Transport {
  const nodeOptions = extra.ca ? { ca: extra.ca } : {};
  const setHeaders: Interceptor = (next) => async (req) => {
    for (const [k, v] of Object.entries(extra.headers ?? {})) req.header.set(k, v);
    return next(req);
  };
  const interceptors = extra.headers ? [setHeaders] : [];
  if (protocol === "grpc") return createGrpcTransport({ baseUrl, nodeOptions, interceptors });
  const httpVersion = extra.httpVersion ?? "1.1";
  if (protocol === "grpc-web")
    return createGrpcWebTransport({ baseUrl, httpVersion, nodeOptions, interceptors });
  return createConnectTransport({ baseUrl, httpVersion, nodeOptions, interceptors });
}

export function clientFor(
  protocol: ProtocolName,
  baseUrl: string,
  extra?: Parameters<typeof transportFor>[2],
): Client<typeof CompactTxStreamer> {
  return createClient(CompactTxStreamer, transportFor(protocol, baseUrl, extra));
}
