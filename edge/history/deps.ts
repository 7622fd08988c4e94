import type { HandlerContext } from "@connectrpc/connect";
import type { HeadObject } from "../../proto/range/index.ts";
import { beforeDeadline } from "../../proto/wire/deadline.ts";
import type { EdgeServices } from "../services.ts";
import type { OriginTail } from "./origin-tail.ts";

/** What every history call of one network reads: storage (services), the origin, the tip. */
export interface HistoryDeps {
  s: EdgeServices;
  network: string;
  tail: OriginTail;
  /** The edge's tip: GetLatestBlock's answer (the origin's, else the sealed tip). */
  tip(): Promise<number>;
}

/** The head when it seals anything (history or not: callers check), else undefined. */
export async function sealedHead(
  d: HistoryDeps,
): Promise<(HeadObject & { tip: { height: number } }) | undefined> {
  const head = await d.s.heads.head(d.network);
  return head?.tip ? (head as HeadObject & { tip: { height: number } }) : undefined;
}

/** `work`, or the call's DeadlineExceeded once its deadline passes (storage reads take no signal). */
export function within<T>(ctx: HandlerContext, work: Promise<T>): Promise<T> {
  return beforeDeadline(ctx.signal, work);
}
