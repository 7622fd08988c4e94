// The generated lightwallet-protocol types (proto/gen, from proto/walletrpc). The rest of what
// edge/ and origin/ share lives beside it and is imported by path: the sealed-range format
// (proto/range), tree states (proto/treestate), errors, bytes, networks, pools.
export * from "./gen/compact_formats_pb.js";
export * from "./gen/service_pb.js";
// lightedge's internal origin → edge service (proto/walletrpc/lightedge_history.proto).
export * from "./gen/lightedge_history_pb.js";
