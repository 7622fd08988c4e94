//! What a `sync` reports: balances per pool, the notes the wallet found, the wallet's own
//! commitment-tree roots next to the server's `GetTreeState` roots, and subtree-root counts.

use futures_util::TryStreamExt;
use incrementalmerkletree::{frontier::Frontier, Hashable};
use serde_json::{json, Value};
use shardtree::{error::ShardTreeError, store::ShardStore, ShardTree};
use zcash_client_backend::{
    data_api::{wallet::ConfirmationsPolicy, Balance, WalletCommitmentTrees, WalletRead},
    proto::service::{BlockId, GetSubtreeRootsArg, ShieldedProtocol},
};
use zcash_client_sqlite::{wallet::commitment_tree, AccountUuid};
use zcash_primitives::merkle_tree::HashSer;
use zcash_protocol::consensus::BlockHeight;

use crate::{client::WalletClient, wallet::Db};

/// Hex of a tree node in the byte order zebrad's (and zcashd's) `finalRoot` uses: Sapling roots
/// are shown byte-reversed like a uint256 (`finalsaplingroot`), Orchard roots in their canonical
/// little-endian encoding (`finalorchardroot`; zebrad's empty Orchard root is `ae2935f1…2f`, the
/// LE bytes of the field element `0x2fd8…29ae`). Ironwood uses the Orchard hash and encoding.
fn root_hex<H: HashSer>(node: &H, reversed: bool) -> String {
    let mut bytes = vec![];
    node.write(&mut bytes).expect("writing to a Vec");
    if reversed {
        bytes.reverse();
    }
    hex::encode(bytes)
}

fn balance(b: &Balance) -> Value {
    json!({ "total": u64::from(b.total()), "spendable": u64::from(b.spendable_value()) })
}

/// Balances at one confirmation: the dev chain mines on demand, so a test that mines one block
/// expects to see (and spend) what it just received. `total` counts every received note.
pub fn balances(db: &Db, account: AccountUuid) -> Result<Value, String> {
    let summary = db
        .get_wallet_summary(ConfirmationsPolicy::MIN)
        .map_err(|e| format!("wallet summary: {e}"))?;
    let Some(summary) = summary else {
        return Ok(Value::Null);
    };
    let Some(acct) = summary.account_balances().get(&account) else {
        return Ok(Value::Null);
    };
    Ok(json!({
        "transparent": balance(&acct.unshielded_balance()),
        "sapling": balance(acct.sapling_balance()),
        "orchard": balance(acct.orchard_balance()),
        "ironwood": balance(acct.ironwood_balance()),
    }))
}

/// Every output the wallet has received (all pools), with whether a known transaction spends it.
pub fn notes(db_path: &std::path::Path) -> Result<Value, String> {
    let sql = "SELECT o.pool, o.value, t.txid, t.mined_height, EXISTS(
                 SELECT 1 FROM v_received_output_spends s
                 WHERE s.pool = o.pool AND s.received_output_id = o.id_within_pool_table)
               FROM v_received_outputs o JOIN transactions t ON t.id_tx = o.transaction_id
               ORDER BY t.mined_height, t.txid, o.pool, o.output_index";
    let conn = rusqlite::Connection::open(db_path).map_err(|e| format!("listing notes: {e}"))?;
    let mut stmt = conn.prepare(sql).map_err(|e| format!("listing notes: {e}"))?;
    let rows = stmt
        .query_map([], |row| {
            let pool: i64 = row.get(0)?;
            let value: i64 = row.get(1)?;
            let mut txid: Vec<u8> = row.get(2)?;
            let height: Option<i64> = row.get(3)?;
            let spent: bool = row.get(4)?;
            txid.reverse();
            Ok(json!({
                "pool": match pool { 0 => "transparent", 2 => "sapling", 3 => "orchard", 4 => "ironwood", _ => "unknown" },
                "value": value,
                "txid": hex::encode(txid),
                "height": height,
                "spent": spent,
            }))
        })
        .map_err(|e| format!("listing notes: {e}"))?;
    rows.collect::<Result<Vec<_>, _>>()
        .map(Value::Array)
        .map_err(|e| format!("listing notes: {e}"))
}

type TreeErr = ShardTreeError<commitment_tree::Error>;

/// The root at the tree's latest checkpoint and that checkpoint's height; null root when the
/// wallet's tree holds no leaf there (an empty or absent pool).
fn checkpoint_root<H, S, const D: u8, const SH: u8>(
    tree: &ShardTree<S, D, SH>,
    reversed: bool,
) -> Result<(Option<u32>, Option<String>), TreeErr>
where
    H: Hashable + HashSer + Clone + PartialEq,
    S: ShardStore<H = H, CheckpointId = BlockHeight, Error = commitment_tree::Error>,
{
    let checkpoint = tree.store().max_checkpoint_id().map_err(ShardTreeError::Storage)?;
    if checkpoint.is_none() {
        // Nothing scanned yet (not even the birthday frontier): no root to report.
        return Ok((None, None));
    }
    let root = match tree.max_leaf_position(Some(0))? {
        Some(_) => tree.root_at_checkpoint_depth(Some(0))?.map(|r| root_hex(&r, reversed)),
        None => None,
    };
    Ok((checkpoint.map(u32::from), root))
}

fn frontier_root<H: Hashable + HashSer + Clone, const D: u8>(
    f: &Frontier<H, D>,
    reversed: bool,
) -> Option<String> {
    f.value().map(|_| root_hex(&f.root(), reversed))
}

/// The wallet's roots at its latest checkpoint next to the server's roots at its tip. The library
/// checkpoints every block that adds commitments (and a sparse grid of others), so the latest
/// checkpoint holds every leaf up to the scanned tip: after a complete sync the two must agree.
pub async fn roots(db: &mut Db, client: &mut WalletClient, tip: u32) -> Result<Value, String> {
    let (cp, sapling) = db
        .with_sapling_tree_mut(|t| checkpoint_root(t, true))
        .map_err(|e: TreeErr| format!("wallet Sapling tree: {e}"))?;
    let (_, orchard) = db
        .with_orchard_tree_mut(|t| checkpoint_root(t, false))
        .map_err(|e: TreeErr| format!("wallet Orchard tree: {e}"))?;
    let ironwood = db
        .with_ironwood_tree_mut(|t| checkpoint_root(t, false))
        .map_err(|e: TreeErr| format!("wallet Ironwood tree: {e}"))?
        .and_then(|(_, r)| r);
    let height = tip;
    let state = client
        .get_tree_state(BlockId { height: height.into(), hash: vec![] })
        .await
        .map_err(|e| format!("GetTreeState({height}): {e}"))?
        .into_inner()
        .to_chain_state()
        .map_err(|e| format!("GetTreeState({height}): unparseable tree state: {e}"))?;
    let server = json!({
        "sapling": frontier_root(state.final_sapling_tree(), true),
        "orchard": frontier_root(state.final_orchard_tree(), false),
        "ironwood": frontier_root(state.final_ironwood_tree(), false),
    });
    let wallet = json!({ "sapling": sapling, "orchard": orchard, "ironwood": ironwood });
    let equal = ["sapling", "orchard", "ironwood"].iter().all(|p| wallet[p] == server[p]);
    Ok(json!({
        "wallet": wallet,
        "walletCheckpoint": cp,
        "server": server,
        "serverHeight": height,
        "equal": equal,
    }))
}

/// How many subtree roots the server announces per pool (`GetSubtreeRoots`, all of them).
pub async fn subtree_counts(client: &mut WalletClient) -> Value {
    let mut out = serde_json::Map::new();
    for (name, proto) in [
        ("sapling", ShieldedProtocol::Sapling),
        ("orchard", ShieldedProtocol::Orchard),
        ("ironwood", ShieldedProtocol::Ironwood),
    ] {
        let mut arg = GetSubtreeRootsArg::default();
        arg.set_shielded_protocol(proto);
        let count = match client.get_subtree_roots(arg).await {
            Ok(stream) => stream.into_inner().try_fold(0u64, |n, _| async move { Ok(n + 1) }).await.ok(),
            Err(_) => None,
        };
        out.insert(name.into(), json!(count));
    }
    Value::Object(out)
}
