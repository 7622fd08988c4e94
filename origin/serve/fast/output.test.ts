import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { encodeFrame } from "../../../proto/frame.ts";
import { BufferPool } from "../../store/index.ts";
import { createFrameOutput, type FastResponse, FLUSH_BYTES } from "./output.ts";

/**
 * A real server writing `frames` through a FrameOutput (pausing `stallMs` after each, as a source
 * waiting for I/O) to a client that starts reading `delayMs` late.
 */
async function serveFrames(frames: Uint8Array[], delayMs: number, stallMs = 0) {
  const stats = { writes: 0, waits: 0, firstByteMs: 0 };
  const server = createServer(async (req, res) => {
    req.resume();
    res.writeHead(200);
    const counted = Object.assign(Object.create(res), {
      write: (chunk: Uint8Array) => {
        stats.writes++;
        return res.write(chunk);
      },
    }) as FastResponse;
    const out = createFrameOutput(counted, new AbortController().signal);
    for (const f of frames) {
      const wait = out.push(f);
      if (wait !== undefined) {
        stats.waits++;
        await wait;
      }
      if (stallMs > 0) await new Promise((r) => setTimeout(r, stallMs));
    }
    await out.flush();
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  const started = performance.now();
  const body = await new Promise<Buffer>((resolve, reject) => {
    request({ port, host: "127.0.0.1", method: "POST", agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.pause();
      setTimeout(() => res.resume(), delayMs);
      res.on("data", (c: Buffer) => {
        stats.firstByteMs ||= performance.now() - started;
        chunks.push(c);
      });
      res.on("end", () => resolve(Buffer.concat(chunks)));
    })
      .on("error", reject)
      .end();
  });
  server.close();
  return { body, stats };
}

describe("frame output", () => {
  it("writes consecutive slices of one read as few large writes, waiting for a slow reader", async () => {
    const frames: Uint8Array[] = [];
    for (let i = 0; i < 2000; i++) frames.push(encodeFrame(new Uint8Array(3000).fill(i % 251)));
    const range = Buffer.concat(frames);
    const slices: Uint8Array[] = [];
    for (let at = 0; at < range.length; at += frames[0]!.length) {
      slices.push(range.subarray(at, at + frames[0]!.length));
    }
    const { body, stats } = await serveFrames(slices, 100);
    expect(body.equals(range)).toBe(true);
    expect(stats.writes).toBe(Math.ceil(range.length / FLUSH_BYTES));
    expect(stats.waits).toBeGreaterThan(0);
  });

  it("sends queued frames as soon as the source stalls, without waiting for a batch to fill", async () => {
    const frames = Array.from({ length: 3 }, (_, i) => encodeFrame(new Uint8Array(10).fill(i)));
    const { body, stats } = await serveFrames(frames, 0, 300);
    expect(body.equals(Buffer.concat(frames))).toBe(true);
    expect(stats.writes).toBe(3);
    expect(stats.firstByteMs).toBeLessThan(250);
  });
});

describe("frame output with a buffer pool", () => {
  /** A response whose write callbacks run only when the test says so. */
  function heldResponse() {
    const held: (() => void)[] = [];
    const written: Uint8Array[] = [];
    const res = {
      write(chunk: Uint8Array, done?: () => void) {
        written.push(chunk.slice());
        if (done) held.push(done);
        return true;
      },
    } as unknown as FastResponse;
    return { res, held, written };
  }

  it("gives a pooled run back only once its write has called back", async () => {
    const pool = new BufferPool({ minBytes: 1 });
    const { res, held, written } = heldResponse();
    const out = createFrameOutput(res, new AbortController().signal, pool);
    const run = pool.take(2 * 105);
    run.set(
      Buffer.concat([encodeFrame(new Uint8Array(100).fill(1)), encodeFrame(new Uint8Array(100).fill(2))]),
    );
    const plain = encodeFrame(new Uint8Array(50).fill(3));
    out.push(run);
    out.push(plain);
    await out.flush();
    expect(written).toHaveLength(2);
    expect(held).toHaveLength(1); // only the pooled piece asks to be told
    expect(pool.lent(run.buffer)).toBe(true);
    expect(pool.take(run.length).buffer).not.toBe(run.buffer);
    held[0]!();
    expect(pool.lent(run.buffer)).toBe(false);
    expect(pool.take(run.length).buffer).toBe(run.buffer);
  });

  it("gives back at once what it will never write (the signal fired)", async () => {
    const pool = new BufferPool({ minBytes: 1 });
    const { res, written } = heldResponse();
    const stop = new AbortController();
    const out = createFrameOutput(res, stop.signal, pool);
    const run = pool.take(105);
    run.set(encodeFrame(new Uint8Array(100)));
    out.push(run);
    stop.abort();
    await out.flush();
    expect(written).toHaveLength(0);
    expect(pool.lent(run.buffer)).toBe(false);
  });
});
