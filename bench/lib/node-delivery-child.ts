import { CALLS, type DeliveryOptions, deliverBlocks } from "./node-delivery.ts";

// One delivery pass in its own process (node-delivery.ts `deliverBlocksApart`): argv[2] is the
// options as JSON with `calls` naming a call set; prints the result as one JSON line.
const o = JSON.parse(process.argv[2]!) as DeliveryOptions & { calls: keyof typeof CALLS };
const result = await deliverBlocks({ ...o, calls: CALLS[o.calls] });
process.stdout.write(`${JSON.stringify(result)}\n`);
