import { SELF } from "cloudflare:test";
import { createClient, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { describe, expect, it } from "vitest";
import { CompactTxStreamer } from "../proto/index.ts";

// connect-web asks fetch for redirect:"error", which workerd's test fetcher rejects.
const selfFetch: typeof fetch = (input, init) =>
  SELF.fetch(input as RequestInfo, { ...init, redirect: "manual" } as RequestInit);

const transports: Record<string, Transport> = {
  "gRPC-web": createGrpcWebTransport({ baseUrl: "https://edge.test", fetch: selfFetch }),
  "Connect (proto)": createConnectTransport({
    baseUrl: "https://edge.test",
    fetch: selfFetch,
    useBinaryFormat: true,
  }),
  "Connect (JSON)": createConnectTransport({ baseUrl: "https://edge.test", fetch: selfFetch }),
};

describe.each(Object.entries(transports))("GetLightdInfo over %s", (_name, transport) => {
  it("answers with the configured vendor and protocol version", async () => {
    const client = createClient(CompactTxStreamer, transport);
    const info = await client.getLightdInfo({});
    expect(info.vendor).toBe("lightedge");
    expect(info.chainName).toBe("main");
    expect(info.taddrSupport).toBe(true);
    expect(info.lightwalletProtocolVersion).toBe("v0.5.0");
  });
});

describe("CORS", () => {
  it("answers a gRPC-web preflight from any origin with the headers browsers send", async () => {
    const res = await SELF.fetch("https://edge.test/cash.z.wallet.sdk.rpc.CompactTxStreamer/GetLightdInfo", {
      method: "OPTIONS",
      headers: {
        origin: "https://wallet.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type,x-grpc-web,x-user-agent,grpc-timeout",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const allowed = res.headers.get("access-control-allow-headers") ?? "";
    for (const h of [
      "content-type",
      "x-grpc-web",
      "x-user-agent",
      "grpc-timeout",
      "connect-protocol-version",
      "connect-timeout-ms",
    ]) {
      expect(allowed).toContain(h);
    }
  });

  it("exposes grpc-status and grpc-message on responses", async () => {
    const res = await SELF.fetch("https://edge.test/cash.z.wallet.sdk.rpc.CompactTxStreamer/GetLightdInfo", {
      method: "POST",
      headers: {
        origin: "https://wallet.example",
        "content-type": "application/grpc-web+proto",
        "x-grpc-web": "1",
      },
      body: new Uint8Array([0, 0, 0, 0, 0]),
    });
    expect(res.status).toBe(200);
    const exposed = res.headers.get("access-control-expose-headers") ?? "";
    for (const h of ["grpc-status", "grpc-message", "grpc-status-details-bin"]) expect(exposed).toContain(h);
    await res.arrayBuffer();
  });
});

describe("GetTaddressBalanceStream", () => {
  it("is Unimplemented at the edge and points at GetTaddressBalance", async () => {
    const res = await SELF.fetch(
      "https://edge.test/cash.z.wallet.sdk.rpc.CompactTxStreamer/GetTaddressBalanceStream",
      {
        method: "POST",
        headers: { "content-type": "application/grpc-web+proto", "x-grpc-web": "1" },
        body: new Uint8Array([0, 0, 0, 0, 0]),
      },
    );
    const body = new Uint8Array(await res.arrayBuffer());
    const text = new TextDecoder().decode(body);
    expect(res.headers.get("grpc-status") ?? text).toMatch(/12/);
    expect(decodeURIComponent(res.headers.get("grpc-message") ?? text)).toContain("GetTaddressBalance");
  });
});

describe("GetTaddressBalanceStream over Connect, with messages that do not decode", () => {
  const call = (body: Uint8Array<ArrayBuffer>) =>
    SELF.fetch("https://edge.test/cash.z.wallet.sdk.rpc.CompactTxStreamer/GetTaddressBalanceStream", {
      method: "POST",
      headers: { "content-type": "application/connect+proto" },
      body,
    });
  /** The end-stream frame's error of a Connect streaming answer. */
  const endError = async (res: Response) => {
    const body = new Uint8Array(await res.arrayBuffer());
    const end = JSON.parse(new TextDecoder().decode(body.subarray(5))) as {
      error?: { code: string; message: string };
    };
    return end.error;
  };

  // connect-es reads a client stream's messages itself and answered both as Internal.
  it("answers a message that does not parse InvalidArgument, naming the RPC and the message", async () => {
    const frame = new Uint8Array([0, 0, 0, 0, 5, 0x0d, 0xff, 0xff, 0xff, 0x0f]);
    const error = await endError(await call(frame));
    expect(error?.code).toBe("invalid_argument");
    expect(error?.message).toMatch(/^GetTaddressBalanceStream: cannot decode Address/);
  });

  it("answers a compressed frame without a message encoding InvalidArgument, as the origin does", async () => {
    const error = await endError(await call(new Uint8Array([1, 0, 0, 0, 0])));
    expect(error).toEqual({
      code: "invalid_argument",
      message: "protocol error: a compressed request frame without a message encoding",
    });
  });

  it("still checks every message after valid ones", async () => {
    const valid = new Uint8Array([0, 0, 0, 0, 0]);
    const torn = new Uint8Array([0, 0, 0, 0, 9, 1]);
    const error = await endError(await call(new Uint8Array([...valid, ...torn])));
    expect(error).toEqual({ code: "invalid_argument", message: "protocol error: incomplete envelope" });
  });
});

describe("oversized requests", () => {
  it("answers a 30–70 KB URL 414 and 70 KB of headers 431, cleanly", async () => {
    for (const kb of [30, 50, 70]) {
      const long = "a".repeat(kb * 1024);
      const url = await SELF.fetch(`https://edge.test/v1/${long}`);
      expect(url.status, `${kb} KB URL`).toBe(414);
      const rpc = await SELF.fetch(
        `https://edge.test/cash.z.wallet.sdk.rpc.CompactTxStreamer/GetLightdInfo?encoding=proto&message=${long}`,
      );
      expect(rpc.status, `${kb} KB query`).toBe(414);
    }
    const headers = await SELF.fetch("https://edge.test/healthz", {
      headers: { "x-big": "a".repeat(70 * 1024) },
    });
    expect(headers.status).toBe(431);
    expect(
      (await SELF.fetch("https://edge.test/healthz", { headers: { "x-ok": "a".repeat(8 * 1024) } })).status,
    ).toBe(200);
  });
});
