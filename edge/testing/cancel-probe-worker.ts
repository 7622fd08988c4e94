// A worker for test/robustness/request-cancel.test.ts, run by workerd as a deployed Worker is: the
// edge's own isolate-wide allowance (blocks/buffer-budget.ts) and request scope
// (request-scope.ts), held by requests whose answers never end on their own, so only a client
// going away ends them. `/held` says what the isolate holds now.
import { bufferedBytes, bufferWaiters, holdBuffer } from "../blocks/buffer-budget.ts";
import { inRequestScope } from "../request-scope.ts";

/** Two requests' holds do not fit at once: the second waits for the first. */
const CAPACITY = 1000;
const HOLD = 600;

export default {
  async fetch(req: Request, _env: unknown, ctx: ExecutionContext): Promise<Response> {
    if (new URL(req.url).pathname === "/held")
      return Response.json({
        held: bufferedBytes(CAPACITY),
        waiting: bufferWaiters(CAPACITY),
        capacity: CAPACITY,
        hold: HOLD,
      });
    return inRequestScope(
      ctx,
      async () => {
        const release = await holdBuffer(HOLD, CAPACITY, undefined);
        const { readable, writable } = new IdentityTransformStream();
        void (async () => {
          const writer = writable.getWriter();
          try {
            for (;;) await writer.write(new Uint8Array(64 * 1024));
          } finally {
            // What the edge's senders do: never reached once workerd cancels the request.
            release();
          }
        })();
        return new Response(readable);
      },
      req.signal,
    );
  },
};
