import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientFor, PROTOCOLS, type Stack, startStack } from "./testing.ts";

/** A self-signed certificate for 127.0.0.1, made with openssl for this run only. */
function selfSigned(): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), "lightedge-tls-"));
  try {
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=127.0.0.1",
        "-addext",
        "subjectAltName=IP:127.0.0.1",
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
      ],
      { stdio: "ignore" },
    );
    return {
      cert: readFileSync(join(dir, "cert.pem"), "utf8"),
      key: readFileSync(join(dir, "key.pem"), "utf8"),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let tls: { cert: string; key: string };
let stack: Stack;
beforeAll(async () => {
  tls = selfSigned();
  stack = await startStack({ blocks: 30, seed: "tls", tls });
});
afterAll(() => stack?.close());

describe("TLS on one port", () => {
  it.each(PROTOCOLS)("serves %s over TLS (ALPN h2 for gRPC, http/1.1 for the others)", async (protocol) => {
    expect(stack.server.url).toMatch(/^https:/);
    const client = clientFor(protocol, stack.server.url, { ca: tls.cert });
    const latest = await client.getLatestBlock({});
    expect(latest.height).toBe(BigInt(stack.dev.chain.tip()));
    const blocks = [];
    for await (const b of client.getBlockRange({ start: { height: 3n }, end: { height: 1n } }))
      blocks.push(Number(b.height));
    expect(blocks).toEqual([3, 2, 1]);
  });

  it("serves Connect and gRPC-web over HTTP/2 with TLS too", async () => {
    for (const protocol of ["connect", "grpc-web"] as const) {
      const client = clientFor(protocol, stack.server.url, { ca: tls.cert, httpVersion: "2" });
      expect((await client.getBlock({ height: 2n })).height).toBe(2n);
    }
  });

  it("refuses clients that do not trust the certificate", async () => {
    await expect(clientFor("grpc", stack.server.url).getLatestBlock({})).rejects.toThrow();
  });
});

describe("cleartext: HTTP/1.1 and h2c on one port", () => {
  let plain: Stack;
  beforeAll(async () => {
    plain = await startStack({ blocks: 20, seed: "plain" });
  });
  afterAll(() => plain?.close());

  it("answers Connect JSON from plain fetch (HTTP/1.1), decoding stored blocks for JSON", async () => {
    const res = await fetch(`${plain.server.url}/cash.z.wallet.sdk.rpc.CompactTxStreamer/GetBlock`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ height: "4" }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { height: string; hash: string; vtx: unknown[] };
    expect(body.height).toBe("4");
    expect(Buffer.from(body.hash, "base64").reverse().toString("hex")).toBe(plain.dev.chain.hashAt(4));
    expect(body.vtx.length).toBeGreaterThan(0);
  });

  it("answers gRPC (h2c prior knowledge) and Connect over h2c on the same port", async () => {
    expect((await clientFor("grpc", plain.server.url).getBlock({ height: 4n })).height).toBe(4n);
    expect(
      (await clientFor("connect", plain.server.url, { httpVersion: "2" }).getBlock({ height: 4n })).height,
    ).toBe(4n);
  });
});
