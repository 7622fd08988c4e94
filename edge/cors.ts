import { cors } from "hono/cors";

// Headers browser gRPC-web (tonic-web-wasm-client, connect-web) and Connect clients send;
// without them every preflight fails and a browser wallet cannot connect at all.
export const corsAllowHeaders = [
  "content-type",
  "x-grpc-web",
  "x-user-agent",
  "grpc-timeout",
  "connect-protocol-version",
  "connect-timeout-ms",
  "authorization",
] as const;

// Status travels in headers/trailers that browsers hide unless exposed.
export const corsExposeHeaders = [
  "grpc-status",
  "grpc-message",
  "grpc-status-details-bin",
  "grpc-retry-pushback-ms",
  "retry-after",
  "content-length",
  "etag",
] as const;

export const corsMiddleware = cors({
  origin: "*",
  allowMethods: ["GET", "POST", "OPTIONS"],
  allowHeaders: [...corsAllowHeaders],
  exposeHeaders: [...corsExposeHeaders],
  maxAge: 86400,
});
