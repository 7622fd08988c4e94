import { create, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { beforeAll, describe, expect, it } from "vitest";
import { encodeFrame } from "../../proto/frame.ts";
import { BlockIDSchema, BlockRangeSchema, ChainSpecSchema } from "../../proto/index.ts";
import { clientsFor } from "../testing/clients.ts";
import { type EdgeFixture, fetchWith, fixture, seedBucket, testEnv } from "../testing/fixture.ts";

const f = fixture as EdgeFixture;
const URL_BASE = "https://edge.test/cash.z.wallet.sdk.rpc.CompactTxStreamer";
const range = (start: number, end: number) =>
  create(BlockRangeSchema, { start: { height: BigInt(start) }, end: { height: BigInt(end) } });

/** A raw call, so the deadline header is exactly what the test says. */
async function rawCall(
  env: ReturnType<typeof testEnv>,
  method: string,
  protocol: "grpc-web" | "connect",
  timeout: string,
  message: Uint8Array,
): Promise<{ status: number; code: number | undefined; message: string; frames: number }> {
  const grpcWeb = protocol === "grpc-web";
  const res = await fetchWith(env)(`${URL_BASE}/${method}`, {
    method: "POST",
    headers: grpcWeb
      ? { "content-type": "application/grpc-web+proto", "grpc-timeout": timeout }
      : {
          "content-type": "application/connect+proto",
          "connect-protocol-version": "1",
          "connect-timeout-ms": timeout,
        },
    body: encodeFrame(message) as Uint8Array<ArrayBuffer>,
  });
  const bytes = new Uint8Array(await res.arrayBuffer());
  let at = 0;
  let frames = 0;
  let end = "";
  while (at + 5 <= bytes.length) {
    const length = new DataView(bytes.buffer, bytes.byteOffset + at + 1, 4).getUint32(0);
    const flag = bytes[at]!;
    if (flag === 0) frames++;
    else end = new TextDecoder().decode(bytes.subarray(at + 5, at + 5 + length));
    at += 5 + length;
  }
  if (grpcWeb) {
    const status = res.headers.get("grpc-status") ?? /grpc-status: ?(\d+)/.exec(end)?.[1];
    const msg = res.headers.get("grpc-message") ?? /grpc-message: ?(.*)/.exec(end)?.[1] ?? "";
    return {
      status: res.status,
      code: status === undefined ? undefined : Number(status),
      message: decodeURIComponent(msg.trim()),
      frames,
    };
  }
  const json = end === "" ? {} : (JSON.parse(end) as { error?: { code: string; message: string } });
  return {
    status: res.status,
    code: json.error === undefined ? 0 : codeOf(json.error.code),
    message: json.error?.message ?? "",
    frames,
  };
}

function codeOf(name: string): Code {
  const key = name
    .replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())
    .replace(/^./, (c) => c.toUpperCase());
  return Code[key as keyof typeof Code];
}

describe.skipIf(fixture === null)("client deadlines at the edge", () => {
  beforeAll(seedBucket);
  const tip = () => f.seed.tips.mainnet!;
  const env = testEnv("good");

  it.each(["grpc-web", "connect"] as const)(
    "refuses malformed deadlines over %s as InvalidArgument",
    async (p) => {
      for (const bad of p === "grpc-web" ? ["abc", "123456789S", "-5m"] : ["abc", "-5", "12345678901"]) {
        const r = await rawCall(
          env,
          "GetBlockRange",
          p,
          bad,
          toBinary(BlockRangeSchema, range(663150, 663151)),
        );
        expect(r.code, bad).toBe(Code.InvalidArgument);
        expect(r.frames).toBe(0);
      }
      const info = await rawCall(env, "GetLightdInfo", p, "abc", new Uint8Array(0));
      expect(info.code).toBe(Code.InvalidArgument);
    },
  );

  it.each(["grpc-web", "connect"] as const)(
    "ends a stream past its deadline with DeadlineExceeded over %s",
    async (p) => {
      // A zero deadline has passed before the first storage read returns: nothing can be sent.
      const r = await rawCall(
        env,
        "GetBlockRange",
        p,
        p === "grpc-web" ? "0m" : "0",
        toBinary(BlockRangeSchema, range(663150, tip())),
      );
      expect(r.code).toBe(Code.DeadlineExceeded);
      expect(r.message).toMatch(/^GetBlockRange: /);
      expect(r.frames).toBe(0);
    },
  );

  it.each(["grpc-web", "connect"] as const)(
    "clamps huge deadlines instead of failing at once over %s",
    async (p) => {
      const huge = p === "grpc-web" ? "597H" : "9999999999";
      const r = await rawCall(
        env,
        "GetBlockRange",
        p,
        huge,
        toBinary(BlockRangeSchema, range(663150, 663159)),
      );
      expect(r.code).toBe(0);
      expect(r.frames).toBe(10);
      if (p === "grpc-web") {
        const latest = await rawCall(
          env,
          "GetLatestBlock",
          p,
          huge,
          toBinary(ChainSpecSchema, create(ChainSpecSchema)),
        );
        expect(latest.code).toBe(0);
        expect(latest.frames).toBe(1);
      } else {
        // Unary Connect calls go through the router, which runs its own timer from the header.
        for (const [name, client] of clientsFor(env).slice(1)) {
          const latest = await client.getLatestBlock({}, { timeoutMs: 3_000_000_000 });
          expect(latest.height, name).toBeGreaterThan(0n);
        }
      }
    },
  );

  it("ends a stream whose client stalls past the deadline with DeadlineExceeded in its end frame", async () => {
    const res = await fetchWith(env)(`${URL_BASE}/GetBlockRange`, {
      method: "POST",
      headers: {
        "content-type": "application/connect+proto",
        "connect-protocol-version": "1",
        "connect-timeout-ms": "300",
      },
      body: encodeFrame(toBinary(BlockRangeSchema, range(663150, tip()))) as Uint8Array<ArrayBuffer>,
    });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    // A reader that stops reading: the stream waits on it until the deadline passes.
    await new Promise((r) => setTimeout(r, 600));
    const chunks: Uint8Array[] = [first.value!];
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
    const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const c of chunks) {
      all.set(c, at);
      at += c.length;
    }
    let frames = 0;
    let end = "";
    for (let i = 0; i + 5 <= all.length; ) {
      const length = new DataView(all.buffer, i + 1, 4).getUint32(0);
      if (all[i] === 0) frames++;
      else end = new TextDecoder().decode(all.subarray(i + 5, i + 5 + length));
      i += 5 + length;
    }
    expect(frames).toBeGreaterThan(0);
    expect(frames).toBeLessThan(tip() - 663150 + 1);
    expect(JSON.parse(end)).toMatchObject({ error: { code: "deadline_exceeded" } });
  });

  it("answers DeadlineExceeded, not Unavailable, while waiting on a hung origin", async () => {
    const hung = testEnv("hung");
    // 300 ms fires before the 1 s origin headers timeout: the client's deadline is what ends it.
    const stream = await rawCall(
      hung,
      "GetBlockRange",
      "connect",
      "300",
      toBinary(BlockRangeSchema, range(tip() - 2, tip() + 2)),
    );
    expect(stream.code).toBe(Code.DeadlineExceeded);
    const [, client] = clientsFor(hung)[0]!;
    const err = await client
      .getTransaction({ hash: new Uint8Array(32) }, { timeoutMs: 300 })
      .catch((e) => ConnectError.from(e));
    expect(err).toMatchObject({ code: Code.DeadlineExceeded });
    const block = await rawCall(
      hung,
      "GetBlock",
      "grpc-web",
      "300m",
      toBinary(BlockIDSchema, create(BlockIDSchema, { height: BigInt(tip() + 1) })),
    );
    expect(block.code).toBe(Code.DeadlineExceeded);
  });

  it("passes the remaining deadline on to proxied origin calls", async () => {
    for (const [name, client] of clientsFor(testEnv("echo"))) {
      const err = await client
        .getTransaction({ hash: new Uint8Array(32) }, { timeoutMs: 5000 })
        .catch((e) => ConnectError.from(e));
      const sent = Number(/connect-timeout-ms=(\d+)/.exec((err as ConnectError).rawMessage)?.[1]);
      expect(sent, name).toBeGreaterThan(0);
      expect(sent, name).toBeLessThanOrEqual(5000);
      const none = await client
        .getTransaction({ hash: new Uint8Array(32) })
        .catch((e) => ConnectError.from(e));
      expect((none as ConnectError).rawMessage, name).toContain("connect-timeout-ms=none");
    }
    const tail = await rawCall(
      testEnv("echo"),
      "GetBlockRange",
      "grpc-web",
      "7S",
      toBinary(BlockRangeSchema, range(tip() + 1, tip() + 2)),
    );
    const sent = Number(/connect-timeout-ms=(\d+)/.exec(tail.message)?.[1]);
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThanOrEqual(7000);
  });
});
