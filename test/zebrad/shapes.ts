/** One JSON-RPC request sent to both nodes (parameters differ only where they name chain data). */
export interface Call {
  name: string;
  method: string;
  zebrad: unknown[];
  devnode: unknown[];
}

/**
 * The shape of a JSON value: its type, and for objects each field's shape, for arrays the shapes
 * of their elements (deduplicated). Integers and fractions are told apart ("int" / "number"):
 * a client that parses heights as integers breaks on 1.0 vs 1 only in some languages, but a dev
 * node that sends a float where zebrad sends an integer is still a difference worth listing.
 */
export function shapeOf(value: unknown): unknown {
  if (value === null) return "null";
  if (Array.isArray(value)) {
    const seen = new Map<string, unknown>();
    for (const v of value) {
      const s = shapeOf(v);
      seen.set(JSON.stringify(s), s);
    }
    return { array: [...seen.values()] };
  }
  if (typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value as object).sort())
      out[key] = shapeOf((value as Record<string, unknown>)[key]);
    return { object: out };
  }
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "number";
  return typeof value;
}

/**
 * Differences between zebrad's shape and the dev node's, one line per path:
 * `path: zebrad X, dev node Y`, `path: only zebrad`, `path: only dev node`.
 */
export function diffShapes(zebrad: unknown, devnode: unknown, path = "$"): string[] {
  const z = zebrad as Record<string, unknown> | string;
  const d = devnode as Record<string, unknown> | string;
  if (typeof z === "object" && typeof d === "object" && "object" in z && "object" in d) {
    const zo = z.object as Record<string, unknown>;
    const dobj = d.object as Record<string, unknown>;
    const out: string[] = [];
    for (const key of new Set([...Object.keys(zo), ...Object.keys(dobj)])) {
      if (!(key in dobj)) out.push(`${path}.${key}: only zebrad`);
      else if (!(key in zo)) out.push(`${path}.${key}: only dev node`);
      else out.push(...diffShapes(zo[key], dobj[key], `${path}.${key}`));
    }
    return out.sort();
  }
  if (typeof z === "object" && typeof d === "object" && "array" in z && "array" in d) {
    const za = z.array as unknown[];
    const da = d.array as unknown[];
    // Empty arrays carry no element shape: nothing to compare (lists differ in length by chain).
    if (za.length === 0 || da.length === 0) return [];
    return diffShapes(za[0], da[0], `${path}[]`);
  }
  const zs = JSON.stringify(z);
  const ds = JSON.stringify(d);
  return zs === ds ? [] : [`${path}: zebrad ${brief(z)}, dev node ${brief(d)}`];
}

function brief(shape: unknown): string {
  if (typeof shape === "string") return shape;
  if (typeof shape === "object" && shape !== null && "object" in shape) return "object";
  if (typeof shape === "object" && shape !== null && "array" in shape) return "array";
  return JSON.stringify(shape);
}
