/**
 * Request faults set through the control API: delay (stall) JSON-RPC requests, or fail them with
 * an HTTP status, a JSON-RPC error code, a closed connection, or an answer that never ends
 * (streamed until the client hangs up: chunked, or under a content-length of 1 TiB) — for the
 * next N requests or until cleared.
 * Control requests are never affected.
 */
export interface FaultPlan {
  stallMs: number;
  stallLeft: number;
  fail?: { status?: number; code?: number; message?: string; close?: boolean; flood?: Flood };
  failLeft: number;
}

export type FaultAction =
  | { kind: "none" }
  | { kind: "status"; status: number }
  | { kind: "code"; code: number; message: string }
  | { kind: "close" }
  | { kind: "flood"; how: Flood };

/** How an endless answer says so: not at all (chunked), or by declaring a huge length. */
export type Flood = "chunked" | "declared";

export function createFaults() {
  const plan: FaultPlan = { stallMs: 0, stallLeft: 0, failLeft: 0 };
  return {
    plan,
    stall(ms: number, requests?: number) {
      plan.stallMs = ms;
      plan.stallLeft = requests ?? Number.POSITIVE_INFINITY;
    },
    fail(how: NonNullable<FaultPlan["fail"]>, requests?: number) {
      plan.fail = how;
      plan.failLeft = requests ?? Number.POSITIVE_INFINITY;
    },
    clear() {
      plan.stallMs = 0;
      plan.stallLeft = 0;
      plan.fail = undefined;
      plan.failLeft = 0;
    },
    /** Delay for this request (ms), consuming one stall. */
    nextDelay(): number {
      if (plan.stallLeft <= 0) return 0;
      plan.stallLeft--;
      return plan.stallMs;
    },
    nextAction(): FaultAction {
      if (!plan.fail || plan.failLeft <= 0) return { kind: "none" };
      plan.failLeft--;
      const f = plan.fail;
      if (f.close) return { kind: "close" };
      if (f.flood) return { kind: "flood", how: f.flood };
      if (f.status) return { kind: "status", status: f.status };
      return { kind: "code", code: f.code ?? -1, message: f.message ?? "injected failure" };
    },
    describe() {
      return {
        stallMs: plan.stallLeft > 0 ? plan.stallMs : 0,
        stallRequests: plan.stallLeft === Number.POSITIVE_INFINITY ? "until-cleared" : plan.stallLeft,
        fail: plan.failLeft > 0 ? plan.fail : undefined,
        failRequests: plan.failLeft === Number.POSITIVE_INFINITY ? "until-cleared" : plan.failLeft,
      };
    },
  };
}

export type Faults = ReturnType<typeof createFaults>;
