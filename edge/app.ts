import type { ConnectError } from "@connectrpc/connect";
import { Hono } from "hono";
import { toConnectError } from "../proto/errors.ts";
import { quoteInput } from "../proto/quote.ts";
import { startDeadline } from "../proto/wire/deadline.ts";
import { type DetectedProtocol, parseTimeoutMs, timeoutHeaderOf } from "../proto/wire/protocol.ts";
import { bufferedBytes, bufferWaiters } from "./blocks/buffer-budget.ts";
import { noHeadWarning } from "./blocks/head-source.ts";
import { corsMiddleware } from "./cors.ts";
import type { Env } from "./env.ts";
import { heldHistoryRecords } from "./history/budget.ts";
import { serveObject } from "./http/objects.ts";
import { inRequestScope, type RequestLifetime } from "./request-scope.ts";
import { dispatchRpc } from "./rpc/dispatch.ts";
import { fastUnaryCounters } from "./rpc/fast-unary.ts";
import { overRateLimit } from "./rpc/rate-limit.ts";
import { type EdgeServices, servicesFor } from "./services.ts";
import { asGrpcWebText } from "./wire/grpc-web-text.ts";
import { detectWebProtocol } from "./wire/protocol.ts";
import { errorResponse } from "./wire/responses.ts";

export const SERVICE = "cash.z.wallet.sdk.rpc.CompactTxStreamer";

/**
 * The worker's HTTP surface: CORS, health, sealed objects over plain GET, and the lightwallet
 * protocol. A request names its network by a path prefix (`/testnet/cash.z.wallet.sdk.rpc…`),
 * which every client supports through its base URL; unprefixed paths get the first of NETWORKS.
 */
export function createApp(): Hono<{ Bindings: Env }> {
  const app = new Hono<{ Bindings: Env }>();
  app.use("*", corsMiddleware);
  // Per-isolate caches fill after the response through the request's waitUntil, and isolate-wide
  // allowances are given back when its client goes away (request-scope.ts).
  app.use("*", (c, next) => inRequestScope(lifetimeOf(c), next, c.req.raw.signal));
  app.use("*", async (c, next) => {
    const tooLarge = oversizedRequest(c.req.raw);
    if (tooLarge !== undefined) return tooLarge;
    await next();
    return undefined;
  });
  app.get("/healthz", (c) => health(c.env));
  app.get("/stats", (c) => stats(c.env));
  app.get("/v1/*", (c) => serveObject(servicesFor(c.env), c.req.raw));
  app.all(`/${SERVICE}/:method`, (c) => rpc(c.env, undefined, c.req.param("method"), c.req.raw));
  app.all(`/:network/${SERVICE}/:method`, (c) =>
    rpc(c.env, c.req.param("network"), c.req.param("method"), c.req.raw),
  );
  return app;
}

/**
 * Longest URL served: 16 KiB, the URL limit of Workers in production (Cloudflare Workers platform
 * limits: "URL size 16 KB"), so `wrangler dev` — whose runtime answers 414 itself only from 64 KiB —
 * behaves as production. No honest request comes near it: a Connect GET carries one small message.
 */
export const MAX_URL_BYTES = 16 * 1024;
/**
 * Total request header bytes served (names + values). Production passes up to 128 KB on and the
 * local runtime 256 KiB; 64 KiB is the worker's own bound, the same everywhere. Wallets send < 1 KiB.
 */
export const MAX_HEADER_BYTES = 64 * 1024;

/** The request's ExecutionContext; Hono throws when the runtime gave none (a plain test call). */
function lifetimeOf(c: { executionCtx: RequestLifetime }): RequestLifetime | undefined {
  try {
    return c.executionCtx;
  } catch {
    return undefined;
  }
}

/** 414 URI Too Long / 431 Request Header Fields Too Large (RFC 9110 §15.5.15, RFC 6585 §5). */
function oversizedRequest(req: Request): Response | undefined {
  if (req.url.length > MAX_URL_BYTES) return new Response("URI too long\n", { status: 414 });
  let total = 0;
  req.headers.forEach((value, name) => {
    total += name.length + value.length;
  });
  if (total > MAX_HEADER_BYTES) return new Response("request header fields too large\n", { status: 431 });
  return undefined;
}

/**
 * 200 "ok" while the worker runs, with a warning line per served network that has no head object
 * (served, but nothing read from storage). Heads come from the cached head source.
 */
async function health(env: Env): Promise<Response> {
  const lines = ["ok"];
  try {
    const s = servicesFor(env);
    const heads = await Promise.all(s.config.networks.map((n) => s.heads.head(n).catch(() => undefined)));
    s.config.networks.forEach((n, i) => {
      if (heads[i] === null) lines.push(`warning: ${noHeadWarning(n)}`);
    });
  } catch (err) {
    lines.push(`warning: edge misconfigured: ${String(err)}`);
  }
  return new Response(`${lines.join("\n")}\n`, { headers: { "content-type": "text/plain" } });
}

/**
 * This isolate's cache counters as JSON (the bench reads hit ratios from it): the Cache API layer's
 * hits and misses by object kind, the encoded tree states kept in the isolate, and what its calls
 * hold now of its allowances (buffered range spans, address records). Counts only, nothing a
 * client sent.
 */
function stats(env: Env): Response {
  const s = servicesFor(env);
  const held = {
    bufferedBytes: bufferedBytes(s.config.maxBufferedBytes),
    maxBufferedBytes: s.config.maxBufferedBytes,
    bufferWaiters: bufferWaiters(s.config.maxBufferedBytes),
    historyRecords: heldHistoryRecords(),
    maxHistoryRecords: s.config.maxHistoryRecords,
  };
  const body = { cacheApi: s.cacheCounters ?? null, treeStates: fastUnaryCounters(s), held };
  return new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });
}

async function rpc(env: Env, prefix: string | undefined, method: string, req: Request): Promise<Response> {
  let s: EdgeServices;
  try {
    s = servicesFor(env);
  } catch (err) {
    // A deployment without a usable store or origin URL: log it, answer Internal.
    console.error(JSON.stringify({ level: "error", msg: "edge misconfigured", err: String(err) }));
    return new Response("edge misconfigured\n", { status: 500 });
  }
  const network = prefix ?? s.config.defaultNetwork;
  if (!s.config.networks.includes(network))
    return new Response(`network ${quoteInput(network)} is not served here\n`, { status: 404 });
  const detected = detectWebProtocol(req);
  if (detected === undefined) return new Response("unsupported protocol or content type\n", { status: 415 });
  try {
    const limited = await overRateLimit(env, method, req.headers, s.config.rateLimitPeriodSeconds);
    if (limited !== undefined) return rpcError(detected, limited);
    // The client's deadline (grpc-timeout / connect-timeout-ms) bounds every wait of the call.
    const timeout = req.headers.get(timeoutHeaderOf(detected.protocol));
    const deadline = startDeadline(method, parseTimeoutMs(detected.protocol, timeout));
    return await dispatchRpc(s, network, method, req, detected, deadline);
  } catch (err) {
    return rpcError(detected, toConnectError(method, err, s.log));
  }
}

/** An error answered in the call's protocol (gRPC-web-text: base64, as its successes). */
function rpcError(detected: DetectedProtocol, error: ConnectError): Response {
  const res = errorResponse(detected.protocol, error, detected.binary);
  return detected.text ? asGrpcWebText(res) : res;
}
