import { LightedgeError } from "../../proto/errors.ts";
import type { HeadObject } from "../../proto/range/index.ts";
import type { SealedExtent } from "./plan.ts";

/** What is sealed, from the head (nothing sealed yet: an empty extent at height 0). */
export function extentOf(head: HeadObject | null): SealedExtent {
  if (head === null || head.tip === null)
    return { rangeSize: head?.rangeSize ?? 1000, firstHeight: 0, tipHeight: -1 };
  return { rangeSize: head.rangeSize, firstHeight: head.firstHeight, tipHeight: head.tip.height };
}

/** The error for heights no origin can serve because this network has none configured. */
export function notServed(from: number, to: number, extent: SealedExtent): LightedgeError {
  if (Math.max(from, to) > extent.tipHeight) {
    return new LightedgeError(
      "above-tip",
      "edge.blocks",
      `height ${Math.max(from, to)} is above the tip ${extent.tipHeight}`,
    );
  }
  return new LightedgeError(
    "not-found",
    "edge.blocks",
    `heights below ${extent.firstHeight} are not stored here`,
  );
}
