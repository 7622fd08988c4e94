import { createConnectRouter } from "@connectrpc/connect";
import { createFetchHandler } from "@connectrpc/connect/protocol";
import { Hono } from "hono";
import { corsMiddleware } from "./cors.ts";
import type { Env } from "./env.ts";
import { registerRoutes } from "./rpc/router.ts";

const servicePrefix = "/cash.z.wallet.sdk.rpc.CompactTxStreamer/";

/** The worker's HTTP surface: CORS, health, and the lightwallet protocol. */
export function createApp(): Hono<{ Bindings: Env }> {
  const app = new Hono<{ Bindings: Env }>();
  app.use("*", corsMiddleware);
  app.get("/healthz", (c) => c.text("ok"));
  app.all(`${servicePrefix}*`, (c) => rpcHandler(c.env)(c.req.raw));
  return app;
}

// Built once per isolate per env object: building the router costs more than a request.
const handlers = new WeakMap<Env, (req: Request) => Promise<Response>>();

function rpcHandler(env: Env): (req: Request) => Promise<Response> {
  let handler = handlers.get(env);
  if (handler === undefined) {
    // gRPC-web and Connect only: Workers cannot send HTTP trailers, so native gRPC is
    // served by the origin.
    const router = createConnectRouter({ grpc: false, grpcWeb: true, connect: true });
    registerRoutes(router, env);
    const byPath = new Map(router.handlers.map((h) => [h.requestPath, h]));
    handler = (req) => {
      const path = new URL(req.url).pathname;
      const found = byPath.get(path);
      if (found === undefined) return Promise.resolve(new Response(null, { status: 404 }));
      return createFetchHandler(found)(req);
    };
    handlers.set(env, handler);
  }
  return handler;
}
