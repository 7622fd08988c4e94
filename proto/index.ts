// The one place edge/ and origin/ meet: generated lightwallet-protocol types and the
// sealed-range object format.
export * from "./gen/compact_formats_pb.js";
export * from "./gen/service_pb.js";
