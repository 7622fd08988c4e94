import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import { isFramed, type WireProtocol } from "../../proto/wire/protocol.ts";
import {
  connectGetMessage,
  decodeJsonRequest,
  decodeRequest,
  decodeRequestMessage,
  methodKindOf,
  readCapped,
  splitEnvelopes,
  tooLarge,
  unwrapEnvelope,
} from "../../proto/wire/request.ts";

/**
 * The Fetch API side of request reading; the rules (caps, envelopes, strict decoding, codes) are
 * the protocol core's (proto/wire/request.ts), the same as at the origin.
 */

/**
 * The request's body as sent (the `message` parameter of a Connect GET), capped at `max` bytes:
 * read once, so a fast path can still hand the bytes on to the router.
 */
export async function readRequestBytes(
  req: Request,
  protocol: WireProtocol,
  rpc: string,
  max: number,
): Promise<Uint8Array> {
  if (protocol === "connect-get") return connectGetMessage(new URL(req.url).searchParams, max, rpc);
  const length = req.headers.get("content-length");
  if (Number(length ?? 0) > max) throw tooLarge(rpc, max);
  // A declared length within the cap (the runtime holds the body to it): one native read, no JS
  // chunk loop — the usual case for the few-byte requests of every RPC.
  if (length !== null && /^\d+$/.test(length)) {
    const bytes = new Uint8Array(await req.arrayBuffer());
    if (bytes.length > max) throw tooLarge(rpc, max);
    return bytes;
  }
  return readCapped(req.body as AsyncIterable<Uint8Array> | null, max, rpc);
}

/** Reads and decodes the single request message of a fast-path call, in any binary protocol. */
export async function readRequestMessage<Desc extends DescMessage>(
  req: Request,
  protocol: WireProtocol,
  schema: Desc,
  rpc: string,
  max: number,
): Promise<MessageShape<Desc>> {
  return decodeRequest(schema, await readRequestBytes(req, protocol, rpc, max), rpc, protocol);
}

/** What the router's request check needs to know of a call. */
export interface RouterCall {
  protocol: WireProtocol;
  schema: DescMessage;
  rpc: string;
  /** Largest body taken, envelopes included. */
  max: number;
  binary: boolean;
  /** A client-streaming method: any number of enveloped messages (Connect streaming only here). */
  clientStream: boolean;
  /** The call named a message encoding: compressed frames are then messages, left to the router. */
  encoded: boolean;
}

/**
 * A request for the Connect router with its messages checked first (the core's strict decoding,
 * JSON decoded once so its errors quote the input briefly): without this, connect-es answers a
 * message that does not decode, or a compressed frame without an encoding, as Internal. The body
 * is read (capped) and handed on unchanged.
 */
export async function checkedRouterRequest(req: Request, call: RouterCall): Promise<Request> {
  const { protocol, schema, rpc, binary } = call;
  const bytes = await readRequestBytes(req, protocol, rpc, call.max);
  if (call.clientStream) {
    // Each message, however many (as the origin's strict-requests.ts): the router would read them
    // one by one and answer the first that fails as Internal.
    for (const m of splitEnvelopes(bytes, call.encoded)) {
      if (m.compressed) continue;
      if (binary) decodeRequestMessage(schema, m.bytes, rpc);
      else decodeJsonRequest(schema, m.bytes, rpc);
    }
  } else if (binary) decodeRequest(schema, bytes, rpc, protocol);
  else {
    const message = isFramed(protocol) ? unwrapEnvelope(bytes, methodKindOf(rpc)) : bytes;
    // The router decides what an empty body means.
    if (message.length > 0) decodeJsonRequest(schema, message, rpc);
  }
  return new Request(req.url, {
    method: req.method,
    headers: req.headers,
    body: bytes as Uint8Array<ArrayBuffer>,
    signal: req.signal,
  });
}
