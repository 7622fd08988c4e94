/**
 * The V8 inspector of the edge worker's isolate under Miniflare (`inspectorPort`), over the Chrome
 * DevTools Protocol: CPU profiles (bench/edge-profile.ts) and the isolate's own heap (the soak),
 * which is what a deployed Worker is limited on (128 MB per isolate) — workerd's process RSS also
 * holds the runtime, its allocator's free lists and, under wrangler dev, the local R2 simulator.
 */
export interface Inspector {
  call(method: string, params?: Record<string, unknown>): Promise<unknown>;
  close(): void;
}

/** How long one inspector call may take before it counts as lost. */
const CALL_TIMEOUT_MS = 10_000;

/** Connects to the isolate whose target title names `lightedge` (else the first target). */
export async function connectInspector(port: number): Promise<Inspector> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as {
    webSocketDebuggerUrl: string;
    title?: string;
  }[];
  const target = targets.find((t) => t.title?.includes("lightedge")) ?? targets[0];
  if (target === undefined) throw new Error(`inspector on port ${port} lists no isolate`);
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  let id = 0;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: unknown): void }>();
  ws.onmessage = (e) => {
    const msg = JSON.parse(String(e.data)) as { id?: number; result?: unknown; error?: { message?: string } };
    if (msg.id === undefined) return;
    const p = pending.get(msg.id);
    pending.delete(msg.id);
    if (msg.error) p?.reject(new Error(`inspector: ${msg.error.message ?? JSON.stringify(msg.error)}`));
    else p?.resolve(msg.result);
  };
  ws.onclose = () => {
    for (const p of pending.values()) p.reject(new Error("inspector: connection closed"));
    pending.clear();
  };
  return {
    // Bounded: workerd's inspector has been seen to leave a call unanswered for good under load
    // (a 600 s soak hung on one), and a bench must not hang on its instruments.
    call: (method, params = {}) =>
      new Promise((resolve, reject) => {
        const n = ++id;
        const timer = setTimeout(() => {
          pending.delete(n);
          reject(new Error(`inspector: ${method} unanswered after ${CALL_TIMEOUT_MS} ms`));
        }, CALL_TIMEOUT_MS);
        pending.set(n, {
          resolve: (v) => {
            clearTimeout(timer);
            resolve(v);
          },
          reject: (e) => {
            clearTimeout(timer);
            reject(e);
          },
        });
        ws.send(JSON.stringify({ id: n, method, params }));
      }),
    close: () => ws.close(),
  };
}

/** The isolate's V8 heap in MiB: used now, or (`gc`) what stays live after a full collection. */
export async function isolateHeapMiB(inspector: Inspector, o: { gc?: boolean } = {}): Promise<number> {
  if (o.gc) await inspector.call("HeapProfiler.collectGarbage");
  const { usedSize } = (await inspector.call("Runtime.getHeapUsage")) as { usedSize: number };
  return usedSize / 2 ** 20;
}
