import { env } from "cloudflare:test";
import { type DescMessage, type MessageShape, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { CompactTxStreamer } from "../../proto/index.ts";
import type { Env } from "../env.ts";
import type { Streamer } from "../testing/clients.ts";
import { fixture, testEnv } from "../testing/fixture.ts";
import type { HistoryChainInfo } from "./chain-info.ts";
import { mapLimited } from "./limited.ts";

/**
 * Test support for the history tests: chains with node-free history sealed by a real indexer and
 * served by a real origin (test/support/history-chains.ts: a process per chain, started on first
 * request), their
 * objects put into the R2 binding under a prefix of their own, and comparisons of the edge's
 * answers with the origin's node-backed ones, message bytes and statuses alike.
 */

/** What the fixture server says of a chain. */
export type HistoryChain = HistoryChainInfo;

/**
 * Objects the history RPCs never read (the compact projections but `full`, tree states): not
 * seeded. A block hash is confirmed from the block's `full` frame (proto/range-format.md §Hash index).
 */
const UNREAD = /\.(shielded|nullifiers|trees)\.bin$/;

export const prefixOf = (chain: Pick<HistoryChain, "name">) => `hist-${chain.name}`;

/** The chain's info (built on first request), its store's objects seeded into the R2 binding. */
export async function loadChain(name: string): Promise<HistoryChain> {
  const chain = await chainInfo(name);
  const bucket = (env as unknown as Env).BLOCKS!;
  await mapLimited(
    chain.keys.filter((k) => !UNREAD.test(k)),
    8,
    async (key) => {
      const res = await fetch(`${chain.url}/objects/${key}`);
      if (!res.ok) throw new Error(`fixture object ${key}: HTTP ${res.status}`);
      await bucket.put(`${prefixOf(chain)}/${key}`, await res.arrayBuffer());
    },
  );
  return chain;
}

async function chainInfo(name: string): Promise<HistoryChain> {
  const res = await fetch(`${fixture!.history}/chains/${name}`);
  if (!res.ok) throw new Error(`history fixture ${name}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as HistoryChain;
}

/** Replaces the chain's last `depth` blocks (dev node reorg), once the origin follows: the new info. */
export async function reorgChain(chain: HistoryChain, depth: number): Promise<HistoryChain> {
  const res = await fetch(`${chain.url}/reorg?depth=${depth}`, { method: "POST" });
  if (!res.ok) throw new Error(`history chain reorg ${chain.name}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as HistoryChain;
}

/** An origin URL nothing listens on (the fixture's `down` origin). */
export function downUrl(): string {
  return fixture!.origins.down.split("=").slice(1).join("=");
}

/** The edge serving the chain's store, with its origin good, down or absent. */
export function chainEnv(
  chain: HistoryChain,
  origin: "good" | "down" | "none" = "good",
  extra: Partial<Env> = {},
): Env {
  const url = origin === "good" ? chain.origin : origin === "down" ? downUrl() : "";
  return testEnv("none", {
    NETWORKS: chain.network,
    ORIGIN_URL: url === "" ? "" : `${chain.network}=${url}`,
    STORE_PREFIX: prefixOf(chain),
    // The head and the origin's tip stay as first read: the chains stand still while compared (a
    // tip refresh that timed out under the test's load would fall back to the sealed tip).
    HEAD_CACHE_SECONDS: "3600",
    ...extra,
  });
}

/** fetch to a chain's origin, with the secret it checks. */
export const originFetch: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set("x-lightedge-secret", fixture!.originSecret);
  // connect-web asks for redirect "error", which workerd refuses.
  return fetch(input, { ...init, headers, redirect: "manual" });
};

/** A Connect (binary) client straight to the chain's origin: its node-backed answers. */
export function originClient(chain: HistoryChain): Streamer {
  return createClient(
    CompactTxStreamer,
    createConnectTransport({ baseUrl: chain.origin, fetch: originFetch, useBinaryFormat: true }),
  );
}

/** What a call came to: its messages' bytes (hex), and the status it ended with, if not OK. */
export interface Outcome {
  messages: string[];
  error?: { code: string; message: string };
}

const errorOf = (err: unknown) => {
  const e = ConnectError.from(err);
  return { code: Code[e.code], message: e.rawMessage };
};

/** A unary call's outcome. */
export async function unary<D extends DescMessage>(
  schema: D,
  call: Promise<MessageShape<D>>,
): Promise<Outcome> {
  try {
    return { messages: [hex(toBinary(schema, await call))] };
  } catch (err) {
    return { messages: [], error: errorOf(err) };
  }
}

/** A server stream's outcome: what came before the end, and the end. */
export async function stream<D extends DescMessage>(
  schema: D,
  call: AsyncIterable<MessageShape<D>>,
): Promise<Outcome> {
  const messages: string[] = [];
  try {
    for await (const m of call) messages.push(hex(toBinary(schema, m)));
    return { messages };
  } catch (err) {
    return { messages, error: errorOf(err) };
  }
}

function hex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}

export { mapLimited };
