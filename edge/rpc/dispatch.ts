import type { DescMessage } from "@bufbuild/protobuf";
import { createConnectRouter } from "@connectrpc/connect";
import { createFetchHandler } from "@connectrpc/connect/protocol";
import { LightedgeError } from "../../proto/errors.ts";
import { FRAME_HEADER_BYTES } from "../../proto/frame.ts";
import { CompactTxStreamer } from "../../proto/index.ts";
import { beforeDeadline, type Deadline } from "../../proto/wire/deadline.ts";
import { errorInterceptor } from "../../proto/wire/error-interceptor.ts";
import { maxRequestBytes } from "../../proto/wire/limits.ts";
import {
  type DetectedProtocol,
  isFramed,
  timeoutHeaderOf,
  timeoutHeaderValue,
  type WireProtocol,
} from "../../proto/wire/protocol.ts";
import { serveBlockRange } from "../blocks/block-range.ts";
import { serveGetBlock } from "../blocks/get-block.ts";
import type { EdgeServices } from "../services.ts";
import { connectGetToPost, GET_METHODS } from "../wire/connect-get.ts";
import { viaGrpcWebText } from "../wire/grpc-web-text.ts";
import { checkedRouterRequest } from "../wire/request.ts";
import { type ChainInfo, createChainInfo } from "./chain-info.ts";
import { FAST_UNARY, fastUnaryProtocol, serveFastUnary } from "./fast-unary.ts";
import { registerRoutes } from "./router.ts";

type Handler = (req: Request) => Promise<Response>;

/** Largest request the router takes: SendTransaction's cap, its JSON form included. */
const ROUTER_READ_MAX_BYTES = maxRequestBytes("SendTransaction", false);

/**
 * Routes one RPC: gRPC-web-text is unwrapped to binary gRPC-web first; the four block RPCs in a
 * binary, uncompressed protocol take the stored-frame fast path; everything else (JSON,
 * compressed requests, node-only RPCs, tip and info) goes through a Connect router.
 */
export async function dispatchRpc(
  s: EdgeServices,
  network: string,
  method: string,
  req: Request,
  detected: DetectedProtocol,
  deadline: Deadline,
): Promise<Response> {
  if (detected.text) {
    const unwrapped: DetectedProtocol = { ...detected, text: false };
    return viaGrpcWebText(
      req,
      method,
      maxRequestBytes(method) + FRAME_HEADER_BYTES,
      detected.binary,
      (inner) => dispatchRpc(s, network, method, inner, unwrapped, deadline),
    );
  }
  if (detected.binary && detected.encoding === undefined) {
    if (method === "GetBlockRange" || method === "GetBlockRangeNullifiers") {
      return serveBlockRange(s, network, method, req, detected.protocol, deadline);
    }
    if (method === "GetBlock" || method === "GetBlockNullifiers") {
      return serveGetBlock(s, network, method, req, detected.protocol, deadline);
    }
    if (FAST_UNARY.has(method) && fastUnaryProtocol(detected.protocol)) {
      return serveFastUnary(s, chainInfoFor(s), network, method, req, detected.protocol, deadline, (again) =>
        viaRouter(s, network, method, again, detected, deadline),
      );
    }
  }
  return viaRouter(s, network, method, req, detected, deadline);
}

/** One call through the Connect router (JSON, node-only RPCs, what the fast paths do not hold). */
async function viaRouter(
  s: EdgeServices,
  network: string,
  method: string,
  req: Request,
  detected: DetectedProtocol,
  deadline: Deadline,
): Promise<Response> {
  let routed = req;
  if (detected.protocol === "connect-get") {
    if (!GET_METHODS.has(method))
      throw new LightedgeError("bad-request", "edge.dispatch", "this method is not available over GET");
    routed = connectGetToPost(req, method);
  }
  routed = await checkedForRouter(routed, detected, method, deadline);
  // The router's handlers run their own deadline from the header: hand them the clamped value,
  // never the client's raw one (a timer given ≥ 2³¹ ms fires at once).
  routed = withTimeoutHeader(routed, detected.protocol, deadline.remainingMs());
  const res = await routerFor(s, network)(routed, method);
  if (detected.protocol !== "connect-get" || res.status !== 200) return res;
  const headers = new Headers(res.headers);
  // Answers may change with the tip: cacheable, but only for as long as the head is.
  headers.set("cache-control", `public, max-age=${Math.max(1, Math.floor(s.config.headCacheMs / 1000))}`);
  return new Response(res.body, { status: res.status, headers });
}

/** Input schemas of the methods the router serves, and which of them are client streams. */
const inputOf = new Map<string, { schema: DescMessage; clientStream: boolean }>(
  CompactTxStreamer.methods
    .filter((m) => m.methodKind !== "bidi_streaming")
    .map((m) => [m.name, { schema: m.input, clientStream: m.methodKind === "client_streaming" }]),
);

/**
 * A request with its messages checked before the router: binary for truncation and wire types,
 * JSON decoded once so its errors quote the input briefly (wire/request.ts).
 */
function checkedForRouter(
  req: Request,
  detected: DetectedProtocol,
  method: string,
  deadline: Deadline,
): Promise<Request> {
  const input = inputOf.get(method);
  // connect-get was turned into a Connect unary POST above.
  const protocol = detected.protocol === "connect-get" ? "connect-unary" : detected.protocol;
  // A client stream in an unframed protocol is the router's to refuse (a typed code).
  if (input === undefined || (input.clientStream && !isFramed(protocol))) return Promise.resolve(req);
  return beforeDeadline(
    deadline.signal,
    checkedRouterRequest(req, {
      protocol,
      schema: input.schema,
      rpc: method,
      max: maxRequestBytes(method, detected.binary) + FRAME_HEADER_BYTES,
      binary: detected.binary,
      clientStream: input.clientStream,
      encoded: detected.encoding !== undefined,
    }),
  );
}

/** The request with its deadline header replaced by the remaining, clamped time (if any). */
function withTimeoutHeader(req: Request, protocol: WireProtocol, remainingMs: number | undefined): Request {
  if (remainingMs === undefined) return req;
  const name = timeoutHeaderOf(protocol);
  const value = timeoutHeaderValue(protocol, remainingMs);
  if (req.headers.get(name) === value) return req;
  const headers = new Headers(req.headers);
  headers.set(name, value);
  return new Request(req, { headers });
}

// Built once per isolate per services object and network: building a router costs more than a call.
const routers = new WeakMap<EdgeServices, Map<string, (req: Request, method: string) => Promise<Response>>>();

function routerFor(s: EdgeServices, network: string): (req: Request, method: string) => Promise<Response> {
  let byNetwork = routers.get(s);
  if (byNetwork === undefined) {
    byNetwork = new Map();
    routers.set(s, byNetwork);
  }
  let route = byNetwork.get(network);
  if (route === undefined) {
    // gRPC-web and Connect only: Workers cannot send HTTP trailers, so native gRPC is the origin's.
    const router = createConnectRouter({
      grpc: false,
      grpcWeb: true,
      connect: true,
      readMaxBytes: ROUTER_READ_MAX_BYTES,
      // The router's one error mapping (the fast paths map their own, in the same function).
      interceptors: [errorInterceptor({ log: (_rpc, err) => s.log(err) })],
    });
    registerRoutes(router, s, chainInfoFor(s), network);
    const handlers = new Map<string, Handler>(
      router.handlers.map((h) => [h.method.name, createFetchHandler(h)]),
    );
    route = (req, method) => {
      const handler = handlers.get(method);
      return handler === undefined ? Promise.resolve(new Response(null, { status: 404 })) : handler(req);
    };
    byNetwork.set(network, route);
  }
  return route;
}

// One per services object, shared by the router and the fast path so both read one cached tip.
const chainInfos = new WeakMap<EdgeServices, ChainInfo>();

function chainInfoFor(s: EdgeServices): ChainInfo {
  let info = chainInfos.get(s);
  if (info === undefined) {
    info = createChainInfo(s);
    chainInfos.set(s, info);
  }
  return info;
}
