import {
  type Client,
  Code,
  ConnectError,
  createClient,
  type HandlerContext,
  type ServiceImpl,
} from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { LightedgeError } from "../../proto/errors.ts";
import { CompactTxStreamer } from "../../proto/index.ts";
import { checkAddress, checkAddresses, checkExcludeSuffixes } from "../../proto/wire/limits.ts";
import type { OriginClient } from "../tail/origin-client.ts";

type Impl = ServiceImpl<typeof CompactTxStreamer>;
export type OriginApi = Client<typeof CompactTxStreamer>;
type CallOpts = { signal: AbortSignal; timeoutMs?: number };

/**
 * The origin call's options: the client's signal and its remaining deadline, which connect-web
 * sends on as connect-timeout-ms so the origin bounds its node calls (and retries) by it.
 */
export function callOpts(ctx: HandlerContext): CallOpts {
  const timeoutMs = ctx.timeoutMs();
  return timeoutMs === undefined ? { signal: ctx.signal } : { signal: ctx.signal, timeoutMs };
}

/** The DeadlineExceeded a call ends with once its deadline passed (whatever the origin call threw). */
export function pastDeadline(ctx: HandlerContext): ConnectError | undefined {
  const reason: unknown = ctx.signal.reason;
  return reason instanceof ConnectError && reason.code === Code.DeadlineExceeded ? reason : undefined;
}

/** What a call that needs the origin says when none is configured for its network. */
export function noOrigin(rpc: string, network: string): LightedgeError {
  return new LightedgeError("unavailable", rpc, `${rpc}: no origin is configured for ${network}`);
}

/** A typed Connect client of the origin (binary Connect over the secret-carrying fetch). */
export function createOriginApi(origin: OriginClient, baseUrl: string): OriginApi {
  const transport = createConnectTransport({ baseUrl, fetch: origin.fetch, useBinaryFormat: true });
  return createClient(CompactTxStreamer, transport);
}

/**
 * Everything only a node can answer, proxied to the origin: validated here first (limits cost
 * the origin nothing, proto/wire/limits.ts), the origin's errors passed through with their codes,
 * failures to reach it Unavailable; the router's interceptor maps what is thrown.
 */
export function proxiedMethods(api: OriginApi | undefined, network: string): Partial<Impl> {
  const need = (rpc: string): OriginApi => {
    if (api !== undefined) return api;
    throw noOrigin(rpc, network);
  };
  const unary =
    <I, O>(
      rpc: string,
      call: (a: OriginApi, req: I, opts: CallOpts) => Promise<O>,
      check?: (req: I) => void,
    ) =>
    async (req: I, ctx: HandlerContext): Promise<O> => {
      try {
        check?.(req);
        return await call(need(rpc), req, callOpts(ctx));
      } catch (err) {
        throw pastDeadline(ctx) ?? err;
      }
    };
  const stream = <I, O>(
    rpc: string,
    call: (a: OriginApi, req: I, opts: CallOpts) => AsyncIterable<O>,
    check?: (req: I) => void,
  ) =>
    async function* (req: I, ctx: HandlerContext): AsyncGenerator<O> {
      try {
        check?.(req);
        yield* call(need(rpc), req, callOpts(ctx));
      } catch (err) {
        throw pastDeadline(ctx) ?? err;
      }
    };
  return {
    getTransaction: unary("GetTransaction", (a, r, o) => a.getTransaction(r, o)),
    sendTransaction: unary("SendTransaction", (a, r, o) => a.sendTransaction(r, o)),
    getTaddressTxids: stream(
      "GetTaddressTxids",
      (a, r, o) => a.getTaddressTxids(r, o),
      (r) => checkAddress("GetTaddressTxids", r.address, network),
    ),
    getTaddressTransactions: stream(
      "GetTaddressTransactions",
      (a, r, o) => a.getTaddressTransactions(r, o),
      (r) => checkAddress("GetTaddressTransactions", r.address, network),
    ),
    getTaddressBalance: unary(
      "GetTaddressBalance",
      (a, r, o) => a.getTaddressBalance(r, o),
      (r) => checkAddresses("GetTaddressBalance", r.addresses, network),
    ),
    getMempoolTx: stream(
      "GetMempoolTx",
      (a, r, o) => a.getMempoolTx(r, o),
      (r) => checkExcludeSuffixes("GetMempoolTx", r.excludeTxidSuffixes),
    ),
    getMempoolStream: stream("GetMempoolStream", (a, r, o) => a.getMempoolStream(r, o)),
    getTreeState: unary("GetTreeState", (a, r, o) => a.getTreeState(r, o)),
    getLatestTreeState: unary("GetLatestTreeState", (a, r, o) => a.getLatestTreeState(r, o)),
    getSubtreeRoots: stream("GetSubtreeRoots", (a, r, o) => a.getSubtreeRoots(r, o)),
    getAddressUtxos: unary(
      "GetAddressUtxos",
      (a, r, o) => a.getAddressUtxos(r, o),
      (r) => checkAddresses("GetAddressUtxos", r.addresses, network),
    ),
    getAddressUtxosStream: stream(
      "GetAddressUtxosStream",
      (a, r, o) => a.getAddressUtxosStream(r, o),
      (r) => checkAddresses("GetAddressUtxosStream", r.addresses, network),
    ),
    ping: unary("Ping", (a, r, o) => a.ping(r, o)),
  };
}
