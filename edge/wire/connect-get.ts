import { maxRequestBytes } from "../../proto/wire/limits.ts";
import { connectGetMessage } from "../../proto/wire/request.ts";

/**
 * Unary RPCs without side effects, which Connect clients may call with GET so that a CDN can cache
 * them. The .proto files declare no idempotency levels, so the router would refuse GET: requests
 * are turned into the equivalent POST here. SendTransaction (and Ping) stay POST-only.
 */
export const GET_METHODS: ReadonlySet<string> = new Set([
  "GetLatestBlock",
  "GetBlock",
  "GetBlockNullifiers",
  "GetTransaction",
  "GetTaddressBalance",
  "GetTreeState",
  "GetLatestTreeState",
  "GetAddressUtxos",
  "GetLightdInfo",
]);

/** The POST a Connect GET stands for (`?connect=v1&encoding=…&message=…[&base64=1]`). */
export function connectGetToPost(req: Request, rpc: string): Request {
  const params = new URL(req.url).searchParams;
  const encoding = params.get("encoding");
  const body = connectGetMessage(params, maxRequestBytes(rpc, encoding === "proto"), rpc);
  const headers = new Headers(req.headers);
  headers.set("content-type", encoding === "json" ? "application/json" : "application/proto");
  headers.set("connect-protocol-version", "1");
  const url = new URL(req.url);
  url.search = "";
  return new Request(url, {
    method: "POST",
    headers,
    body: body as Uint8Array<ArrayBuffer>,
    signal: req.signal,
  });
}
