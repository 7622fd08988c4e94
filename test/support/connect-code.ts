import { type Code, ConnectError } from "@connectrpc/connect";

/** The Connect code a call fails with, or undefined when it succeeds (RPC tests assert codes). */
export async function codeOf(call: Promise<unknown>): Promise<Code | undefined> {
  try {
    await call;
  } catch (err) {
    return ConnectError.from(err).code;
  }
  return undefined;
}
