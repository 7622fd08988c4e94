import { base64Decode, base64Encode } from "@bufbuild/protobuf/wire";
import { concatBytes } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import { readRequestBytes } from "./request.ts";

/**
 * gRPC-web-text (older grpc-web JS clients): the same frames, base64 on the wire both ways. The
 * request is decoded and handed on as binary gRPC-web; the response is re-encoded as it streams.
 * This is the one path that touches every response byte in JavaScript (base64 must): binary
 * gRPC-web is the fast path, so clients that can should use it.
 */
export async function viaGrpcWebText(
  req: Request,
  rpc: string,
  maxBytes: number,
  binary: boolean,
  inner: (req: Request) => Promise<Response>,
): Promise<Response> {
  const base64Max = Math.ceil((maxBytes * 4) / 3) + 4;
  const text = new TextDecoder().decode(await readRequestBytes(req, "grpc-web", rpc, base64Max));
  let body: Uint8Array;
  try {
    // Clients may send several padded base64 chunks back to back: decode each.
    body = concatBytes((text.replace(/\s+/g, "").match(/[^=]+=*/g) ?? []).map((c) => base64Decode(c)));
  } catch (cause) {
    throw new LightedgeError("bad-request", rpc, `${rpc}: request body is not base64`, { cause });
  }
  const headers = new Headers(req.headers);
  // The codec stays the client's (+proto, or +json): only the base64 layer comes off.
  headers.set("content-type", binary ? "application/grpc-web+proto" : "application/grpc-web+json");
  headers.delete("content-length");
  return asGrpcWebText(
    await inner(
      new Request(req.url, {
        method: "POST",
        headers,
        body: body as Uint8Array<ArrayBuffer>,
        signal: req.signal,
      }),
    ),
  );
}

/**
 * A gRPC-web response as gRPC-web-text (its codec kept): every answer to a text call, errors included (a
 * grpc-web-text client base64-decodes whatever body it gets, so a binary error frame reaches it as
 * garbage, not as its status).
 */
export function asGrpcWebText(res: Response): Response {
  const out = new Headers(res.headers);
  const type = res.headers.get("content-type") ?? "application/grpc-web+proto";
  out.set("content-type", type.replace(/^application\/grpc-web(?!-text)/, "application/grpc-web-text"));
  out.delete("content-length");
  return new Response(res.body?.pipeThrough(createBase64Encoder()) ?? null, {
    status: res.status,
    headers: out,
  });
}

/** Encodes whole 3-byte groups per chunk and carries the rest, so the output is one base64 text. */
function createBase64Encoder(): TransformStream<Uint8Array, Uint8Array> {
  let carry = new Uint8Array(0);
  const encoder = new TextEncoder();
  return new TransformStream({
    transform(chunk, controller) {
      const all = carry.length === 0 ? chunk : concatBytes([carry, chunk]);
      const whole = all.length - (all.length % 3);
      carry = all.slice(whole);
      if (whole > 0) controller.enqueue(encoder.encode(base64Encode(all.subarray(0, whole))));
    },
    flush(controller) {
      if (carry.length > 0) controller.enqueue(encoder.encode(base64Encode(carry)));
    },
  });
}
