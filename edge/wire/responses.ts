import type { ConnectError } from "@connectrpc/connect";
import { earlyError, unaryBody } from "../../proto/wire/end-stream.ts";
import { contentTypeOf, type WireProtocol } from "../../proto/wire/protocol.ts";

/**
 * Whole responses as Fetch API objects; their bytes and headers come from the protocol core
 * (proto/wire/end-stream.ts), the same as the origin writes.
 */

/** A whole response for an error known before any message was sent. `binary` false: a JSON client. */
export function errorResponse(protocol: WireProtocol, error: ConnectError, binary = true): Response {
  const r = earlyError(protocol, error, binary);
  return new Response(r.body as Uint8Array<ArrayBuffer>, { status: r.status, headers: r.headers });
}

/** A whole unary answer: the bare message (Connect) or one frame and the success end (gRPC-web). */
export function unaryResponse(
  protocol: WireProtocol,
  message: Uint8Array,
  headers: Record<string, string> = {},
): Response {
  return new Response(unaryBody(protocol, message) as Uint8Array<ArrayBuffer>, {
    status: 200,
    headers: { "content-type": contentTypeOf[protocol], ...headers },
  });
}
