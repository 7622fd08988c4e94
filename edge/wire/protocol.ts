import { type DetectedProtocol, detectProtocol } from "../../proto/wire/protocol.ts";

export type { DetectedProtocol, WireProtocol } from "../../proto/wire/protocol.ts";

/**
 * A Fetch API request's protocol (proto/wire/protocol.ts decides). Native gRPC is refused here:
 * Workers cannot send HTTP trailers, so gRPC is the origin's (workers-platform.md).
 */
export function detectWebProtocol(req: Request): DetectedProtocol | undefined {
  const detected = detectProtocol({
    method: req.method,
    header: (name) => req.headers.get(name),
    httpVersion: 1,
    getEncoding: req.method === "GET" ? new URL(req.url).searchParams.get("encoding") : null,
  });
  return detected?.protocol === "grpc" ? undefined : detected;
}
