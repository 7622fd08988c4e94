import { Code, ConnectError } from "@connectrpc/connect";
import { beforeAll, describe, expect, it } from "vitest";
import { clientsFor, collect } from "../testing/clients.ts";
import { type EdgeFixture, fixture, seedBucket, testEnv } from "../testing/fixture.ts";
import { ORIGIN_IDLE_MIN_MS } from "./origin-client.ts";

const f = fixture as EdgeFixture;

/**
 * The origin stops mid-answer (test/support/edge-global-setup.ts `stalling`: its headers and a
 * stream's first block, then nothing) and the wallet set no deadline, as connect-web does by
 * default: the call still ends, Unavailable, ORIGIN_IDLE_MIN_MS after the origin's last byte —
 * the tail's streams and unary calls, and calls proxied whole, all read through one origin fetch.
 */
describe.skipIf(fixture === null)("an origin stuck mid-answer, with no client deadline", () => {
  beforeAll(seedBucket);
  const tip = () => f.seed.tips.mainnet!;
  const client = () => clientsFor(testEnv("stalling"))[0]![1];
  const quiet = new RegExp(`the origin sent nothing for ${ORIGIN_IDLE_MIN_MS / 1000} s mid-answer; retry$`);
  const expectQuietOrigin = async (call: Promise<unknown>) => {
    const err = await call.then(
      () => undefined,
      (e: unknown) => ConnectError.from(e),
    );
    expect(err?.code).toBe(Code.Unavailable);
    expect(err?.rawMessage).toMatch(quiet);
  };

  it("ends a range across the sealed tip with Unavailable, after every block that came", async () => {
    const { items, error } = await collect(
      client().getBlockRange({ start: { height: BigInt(tip() - 2) }, end: { height: BigInt(tip() + 2) } }),
    );
    const err = ConnectError.from(error);
    expect(err.code).toBe(Code.Unavailable);
    expect(err.rawMessage).toMatch(quiet);
    // The sealed blocks, then the one block the origin sent before it stopped.
    expect(items.map((b) => Number(b.height))).toEqual([tip() - 2, tip() - 1, tip(), tip() + 1]);
  }, 30_000);

  it("answers a tail block Unavailable when the origin sends its headers and no body", async () => {
    await expectQuietOrigin(client().getBlock({ height: BigInt(tip() + 1) }));
  }, 30_000);

  it("answers a call proxied whole to the origin Unavailable too", async () => {
    await expectQuietOrigin(client().getTransaction({ hash: new Uint8Array(32) }));
  }, 30_000);
});
