import { base64Decode } from "@bufbuild/protobuf/wire";
import { LightedgeError } from "../../proto/errors.ts";

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
export function connectGetToPost(req: Request): Request {
  const params = new URL(req.url).searchParams;
  const encoding = params.get("encoding");
  const message = params.get("message") ?? "";
  let body: Uint8Array;
  try {
    body = params.get("base64") === "1" ? base64Decode(message) : new TextEncoder().encode(message);
  } catch (cause) {
    throw new LightedgeError("bad-request", "wire.connect-get", "bad base64 in the message parameter", {
      cause,
    });
  }
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
