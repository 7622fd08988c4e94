// The generated lightwallet-protocol types (proto/gen, from proto/walletrpc), and lightedge's own
// origin → edge service (lightedge_history.proto). The rest of what edge/ and origin/ share lives
// beside it and is imported by path: the sealed-range format (proto/range), node-free history
// (proto/history), tree states (proto/treestate), errors, bytes, networks, pools.
export * from "./gen/compact_formats_pb.js";
export * from "./gen/lightedge_history_pb.js";
export * from "./gen/service_pb.js";
