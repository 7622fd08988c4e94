// The generated lightwallet-protocol types (proto/gen, from proto/walletrpc). The rest of what
// edge/ and origin/ share lives beside it and is imported by path: the sealed-range format
// (proto/range), tree states (proto/treestate), errors, bytes, networks, pools.
export * from "./gen/compact_formats_pb.js";
export * from "./gen/service_pb.js";
