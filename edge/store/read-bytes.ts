import type { ReadBytes } from "../../proto/treestate/index.ts";
import type { ObjectReader } from "./object-reader.ts";
import { objectBytes } from "./read-all.ts";

/** The tree-state reader's byte port over the edge's ObjectReader (R2, S3 over fetch, public URL). */
export function objectReadBytes(reader: ObjectReader): ReadBytes {
  return async (key, range) => {
    const object = await reader.get(key, range);
    if (object === null) return null;
    return objectBytes(object, key);
  };
}
