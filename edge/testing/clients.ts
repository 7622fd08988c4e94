import { type Client, createClient, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { CompactTxStreamer } from "../../proto/index.ts";
import type { Env } from "../env.ts";
import { fetchWith } from "./fixture.ts";

export type Streamer = Client<typeof CompactTxStreamer>;

/** The three ways browser clients speak to the edge, each as a typed client. */
export function clientsFor(e: Env, base = "https://edge.test"): [string, Streamer][] {
  const fetch = fetchWith(e);
  const transports: [string, Transport][] = [
    ["gRPC-web", createGrpcWebTransport({ baseUrl: base, fetch })],
    ["Connect (proto)", createConnectTransport({ baseUrl: base, fetch, useBinaryFormat: true })],
    ["Connect (JSON)", createConnectTransport({ baseUrl: base, fetch })],
  ];
  return transports.map(([name, t]) => [name, createClient(CompactTxStreamer, t)]);
}

/** Collects a server stream, or the error that ended it (with what came before). */
export async function collect<T>(stream: AsyncIterable<T>): Promise<{ items: T[]; error?: unknown }> {
  const items: T[] = [];
  try {
    for await (const item of stream) items.push(item);
    return { items };
  } catch (error) {
    return { items, error };
  }
}
