/**
 * What the RPC service reads: blocks from the indexer's `ChainView` (tail from memory, sealed
 * heights from the store) and everything only a node knows from the node roles of ../node.
 */
import type { ChainView } from "../index/chain-view.ts";
import type { AddressIndex, NodeInfoSource, TransactionGateway, TreeStateSource } from "../node/ports.ts";

export type { ChainView };

/** The node roles the service uses (a `NodeClient` implements all of them). */
export interface ServeNode extends NodeInfoSource, TransactionGateway, AddressIndex, TreeStateSource {}
