// Tree states served from storage at the edge (issue 10): stored object reads, origin as fallback.
export { sealedTreeStateAt, storedTreeStateMethods } from "./methods.ts";
export { objectReadBytes } from "./read-bytes.ts";
