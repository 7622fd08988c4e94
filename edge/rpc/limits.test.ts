import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { base58check, TADDR_PREFIXES } from "../../proto/taddress.ts";
import { clientsFor, collect } from "../testing/clients.ts";
import { fixture, testEnv } from "../testing/fixture.ts";

const mainnetAddress = base58check(Uint8Array.from([...TADDR_PREFIXES.mainnet.p2pkh, ...new Uint8Array(20)]));
const testnetAddress = base58check(Uint8Array.from([...TADDR_PREFIXES.testnet.p2pkh, ...new Uint8Array(20)]));
const badChecksum = `${mainnetAddress.slice(0, 34)}${mainnetAddress[34] === "z" ? "y" : "z"}`;
const huge = `t1${"A".repeat(2_000_000)}`;

/** The error a unary or streaming call ends with. */
async function errorOf(call: Promise<unknown> | AsyncIterable<unknown>): Promise<ConnectError> {
  if (Symbol.asyncIterator in (call as object))
    return ConnectError.from((await collect(call as AsyncIterable<unknown>)).error);
  return (call as Promise<unknown>).then(
    () => new ConnectError("no error", Code.Unknown),
    (e) => ConnectError.from(e),
  );
}

// The echo origin refuses every call with FailedPrecondition: a call that reaches it says so.
describe.skipIf(fixture === null)("transparent addresses are checked at the edge", () => {
  // A valid range (checked too, as the origin checks it; with an end, so no tip is needed): only
  // the address can be wrong.
  const range = { start: { height: 663150n }, end: { height: 663160n } };
  describe.each(clientsFor(testEnv("echo")))("over %s", (_name, client) => {
    const calls = (address: string) =>
      [
        ["GetTaddressTxids", () => client.getTaddressTxids({ address, range })],
        ["GetTaddressTransactions", () => client.getTaddressTransactions({ address, range })],
        ["GetTaddressBalance", () => client.getTaddressBalance({ addresses: [address] })],
        ["GetAddressUtxos", () => client.getAddressUtxos({ addresses: [address] })],
        ["GetAddressUtxosStream", () => client.getAddressUtxosStream({ addresses: [address] })],
      ] as const;

    it("refuses bad checksums and other networks' addresses before the origin, quoting them", async () => {
      for (const address of [badChecksum, testnetAddress, "t1short", "zs1notatransparentaddress0000000000"]) {
        for (const [rpc, call] of calls(address)) {
          const err = await errorOf(call());
          expect(err.code, `${rpc} ${address}`).toBe(Code.InvalidArgument);
          expect(err.rawMessage).toContain(`${rpc}: invalid address ${JSON.stringify(address)}`);
        }
      }
    });

    it("never echoes or forwards a 2 MB address", async () => {
      for (const [rpc, call] of calls(huge)) {
        const err = await errorOf(call());
        expect([Code.InvalidArgument, Code.ResourceExhausted], rpc).toContain(err.code);
        expect(err.rawMessage.length, rpc).toBeLessThan(200);
      }
    });

    it("forwards valid addresses of the served network", async () => {
      for (const [rpc, call] of calls(mainnetAddress)) {
        expect((await errorOf(call())).code, rpc).toBe(Code.FailedPrecondition);
      }
    });
  });
});
