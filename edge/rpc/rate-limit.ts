import { Code, ConnectError } from "@connectrpc/connect";
import type { Env } from "../env.ts";

/**
 * RPCs every call of which costs the origin a node request (lightwalletd passes each to zcashd /
 * zebrad): limited per client. Stored-block RPCs, GetLatestBlock / GetLightdInfo (cached) and the
 * tree-state RPCs (served from storage first) are never limited.
 */
export const NODE_BACKED_RPCS: ReadonlySet<string> = new Set([
  "GetTransaction",
  "GetTaddressTxids",
  "GetTaddressTransactions",
  "GetTaddressBalance",
  "GetTaddressBalanceStream",
  "GetMempoolTx",
  "GetMempoolStream",
  "GetAddressUtxos",
  "GetAddressUtxosStream",
  "Ping",
]);

/**
 * The client a request counts against: its IP as Cloudflare reports it (CF-Connecting-IP; never a
 * client-set header such as X-Forwarded-For). An IPv6 client owns at least a /64, so it counts as
 * its /64. Undefined — no limit — without the header, and for loopback clients: Miniflare (wrangler
 * dev, `lightedge edge`) sets CF-Connecting-IP to 127.0.0.1 for local callers such as tests, the
 * bench and a developer's wallet, which are no remote clients to protect the node from.
 */
export function clientKeyOf(headers: Headers): string | undefined {
  const ip = headers.get("cf-connecting-ip")?.trim();
  if (ip === undefined || ip === "" || ip.startsWith("127.") || ip === "::1") return undefined;
  if (!ip.includes(":")) return ip;
  const [head = "", tail = ""] = ip.toLowerCase().split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === "" ? [] : tail.split(":");
  const groups = ip.includes("::")
    ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/**
 * Counts the call against its client's budget: SendTransaction against SEND_RATE_LIMIT, node-backed
 * RPCs against NODE_RATE_LIMIT (Workers rate-limiting bindings, wrangler.toml [[ratelimits]]).
 * Over budget: ResourceExhausted with the retry hint in grpc-retry-pushback-ms (gRPC's retry
 * pushback, A6) and Retry-After (RFC 9110 §10.2.3), one period of the binding.
 */
export async function overRateLimit(
  env: Env,
  rpc: string,
  headers: Headers,
  periodSeconds: number,
): Promise<ConnectError | undefined> {
  const binding =
    rpc === "SendTransaction"
      ? env.SEND_RATE_LIMIT
      : NODE_BACKED_RPCS.has(rpc)
        ? env.NODE_RATE_LIMIT
        : undefined;
  if (binding === undefined) return undefined;
  const key = clientKeyOf(headers);
  if (key === undefined) return undefined;
  const { success } = await binding.limit({ key });
  if (success) return undefined;
  return new ConnectError(
    `${rpc}: rate limit exceeded for this client; retry in ${periodSeconds} s`,
    Code.ResourceExhausted,
    { "grpc-retry-pushback-ms": String(periodSeconds * 1000), "retry-after": String(periodSeconds) },
  );
}
