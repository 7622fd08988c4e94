import { create, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { beforeAll, describe, expect, it } from "vitest";
import { BlockRangeSchema, type CompactBlock, CompactBlockSchema, PoolType } from "../../proto/index.ts";
import { clientsFor, collect, type Streamer } from "../testing/clients.ts";
import { b64, type EdgeFixture, fetchWith, fixture, seedBucket, testEnv } from "../testing/fixture.ts";
import { BUFFER_WAIT_MS, bufferedBytes, DEFAULT_MAX_BUFFERED_BYTES, holdBuffer } from "./buffer-budget.ts";

const f = fixture as EdgeFixture;
const range = (start: number, end: number, poolTypes: PoolType[] = []) =>
  create(BlockRangeSchema, { start: { height: BigInt(start) }, end: { height: BigInt(end) }, poolTypes });
/** 663188 down to 663151: the sealed mainnet corpus, sent descending, so buffered. */
const DOWN = { from: 663188, to: 663151 };
const expectedDown = () => {
  const out: Uint8Array[] = [];
  for (let h = DOWN.from; h >= DOWN.to; h--)
    out.push(b64(f.seed.blocks.mainnet!.find((b) => b.height === h)!.shielded));
  return out;
};
const sent = (items: CompactBlock[]) => items.map((b) => toBinary(CompactBlockSchema, b));

/** Waits until the isolate has given back every byte under `capacity` (a cancelled call's too). */
async function settled(capacity: number): Promise<number> {
  for (let i = 0; i < 100 && bufferedBytes(capacity) !== 0; i++) await new Promise((r) => setTimeout(r, 20));
  return bufferedBytes(capacity);
}

/**
 * Descending, re-projected and JSON range reads buffer their stored span in the isolate; together
 * they hold at most MAX_BUFFERED_BYTES (edge/blocks/buffer-budget.ts), the rest waiting their turn,
 * so a few spam-era ranges sent at once cannot end the isolate and every request in it.
 */
describe.skipIf(fixture === null)("block ranges under the isolate's buffer limit", () => {
  beforeAll(seedBucket);
  const cap = DEFAULT_MAX_BUFFERED_BYTES;
  const env = testEnv("good");
  const clients = clientsFor(env);
  const grpcWeb = clients[0]![1];

  describe.each(clientsFor(testEnv("good", { MAX_BUFFERED_BYTES: "1" })))("over %s", (_name, tiny) => {
    it("sends a span larger than the whole limit alone, and gives it back", async () => {
      const { items, error } = await collect(tiny.getBlockRange(range(DOWN.from, DOWN.to)));
      expect(error).toBeUndefined();
      expect(sent(items)).toEqual(expectedDown());
      expect(await settled(1)).toBe(0);
    });
  });

  describe.each(clients)("over %s", (name, client) => {
    it("waits while other calls hold the buffer, then sends", async () => {
      const other = await holdBuffer(cap, cap, undefined);
      let done = false;
      const call = collect(client.getBlockRange(range(DOWN.from, DOWN.to))).finally(() => {
        done = true;
      });
      try {
        await new Promise((r) => setTimeout(r, 300));
        expect(done).toBe(false);
        const stats = (await (await fetchWith(env)("https://edge.test/stats")).json()) as {
          held: { bufferedBytes: number; maxBufferedBytes: number };
        };
        expect(stats.held).toMatchObject({ bufferedBytes: cap, maxBufferedBytes: cap });
        // Ascending stored frames are piped, never held: binary clients are not kept waiting.
        if (name !== "Connect (JSON)") {
          const up = await collect(client.getBlockRange(range(DOWN.to, DOWN.from)));
          expect(up.error).toBeUndefined();
          expect(up.items.length).toBe(DOWN.from - DOWN.to + 1);
        }
      } finally {
        other();
      }
      const { items, error } = await call;
      expect(error).toBeUndefined();
      expect(sent(items)).toEqual(expectedDown());
      expect(await settled(cap)).toBe(0);
    });
  });

  it("ends a re-projected range at the client's deadline while the buffer stays full", async () => {
    const other = await holdBuffer(cap, cap, undefined);
    try {
      const started = Date.now();
      const stream = grpcWeb.getBlockRange(range(DOWN.to, DOWN.from, [PoolType.TRANSPARENT]), {
        timeoutMs: 500,
      });
      const { items, error } = await collect(stream);
      expect(items).toEqual([]);
      expect(ConnectError.from(error).code).toBe(Code.DeadlineExceeded);
      expect(Date.now() - started).toBeLessThan(BUFFER_WAIT_MS / 2);
    } finally {
      other();
    }
    expect(await settled(cap)).toBe(0);
  });

  it("ends Unavailable, saying why, when the buffer stays full past the wait", async () => {
    const other = await holdBuffer(cap, cap, undefined);
    try {
      const { items, error } = await collect(grpcWeb.getBlockRange(range(DOWN.from, DOWN.to)));
      expect(items).toEqual([]);
      const e = ConnectError.from(error);
      expect(e.code).toBe(Code.Unavailable);
      expect(e.rawMessage).toBe(
        `GetBlockRange: buffered range reads (descending, re-projected or JSON) kept the edge's 48 MiB buffer full for ${BUFFER_WAIT_MS / 1000} s; retry`,
      );
    } finally {
      other();
    }
    expect(await settled(cap)).toBe(0);
  }, 30_000);

  it("gives a cancelled call's bytes back", async () => {
    const tiny: Streamer = clientsFor(testEnv("good", { MAX_BUFFERED_BYTES: "1" }))[0]![1];
    const abort = new AbortController();
    const seen: number[] = [];
    try {
      for await (const block of tiny.getBlockRange(range(DOWN.from, DOWN.to), { signal: abort.signal })) {
        seen.push(Number(block.height));
        abort.abort();
      }
    } catch {
      // the abort
    }
    expect(seen).toEqual([DOWN.from]);
    expect(await settled(1)).toBe(0);
  });
});
