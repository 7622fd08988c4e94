//! `sync`: the library's own `zcash_client_backend::sync::run`, unmodified, to the server's tip.

use std::{path::Path, time::Instant};

use serde_json::{json, Map, Value};
use zcash_client_backend::data_api::WalletRead;
use zcash_client_sqlite::AccountUuid;

use crate::{cache::MemBlockCache, client::WalletClient, params::Params, report, wallet::Db};

/// The default batch the mobile SDKs scan in (`sync::run`'s callers pass it explicitly).
pub const DEFAULT_BATCH: u32 = 100;

fn scanned_block_count(db_path: &Path) -> Result<i64, String> {
    let conn = rusqlite::Connection::open(db_path).map_err(|e| format!("counting blocks: {e}"))?;
    conn.query_row("SELECT COUNT(*) FROM blocks", [], |r| r.get(0))
        .map_err(|e| format!("counting blocks: {e}"))
}

/// Runs `sync::run` and fills `out` with the report keys. Returns the sync error, verbatim, if the
/// library stopped; the report keys are filled either way (as far as the wallet got).
pub async fn run(
    db: &mut Db,
    db_path: &Path,
    client: &mut WalletClient,
    params: &Params,
    account: AccountUuid,
    batch_size: u32,
    out: &mut Map<String, Value>,
) -> Result<(), String> {
    let started = Instant::now();
    let out_ref = &mut *out;
    let before = scanned_block_count(db_path)?;
    let cache = MemBlockCache::default();
    let result = zcash_client_backend::sync::run(client, params, &cache, db, batch_size)
        .await
        .map_err(|e| {
            // Display is the library's message; Debug names the variant (e.g. `EncodingInvalid`).
            out_ref.insert("errorDebug".into(), json!(format!("{e:?}")));
            format!("{e}")
        });
    out.insert("elapsedMs".into(), json!(started.elapsed().as_millis() as u64));
    if let Err(e) = &result {
        log::error(&format!("sync failed: {e}"));
    }
    let after = scanned_block_count(db_path)?;
    out.insert("blocksScanned".into(), json!(after - before));
    let tip = crate::wallet::server_tip(client).await;
    out.insert("tip".into(), tip.as_ref().map_or(Value::Null, |t| json!(t)));
    let scanned_to = db
        .block_fully_scanned()
        .map_err(|e| format!("reading the scanned height: {e}"))?
        .map(|m| u32::from(m.block_height()));
    out.insert("scannedTo".into(), json!(scanned_to));
    out.insert("balances".into(), report::balances(db, account)?);
    out.insert("notes".into(), report::notes(db_path)?);
    let roots = match &tip {
        Ok(t) => report::roots(db, client, *t).await.unwrap_or_else(|e| json!({ "error": e })),
        Err(e) => json!({ "error": e }),
    };
    out.insert("roots".into(), roots);
    out.insert("subtreeRoots".into(), report::subtree_counts(client).await);
    result
}

pub mod log {
    pub fn info(msg: &str) {
        eprintln!("[lightedge-wallet] {msg}");
    }
    pub fn error(msg: &str) {
        eprintln!("[lightedge-wallet] error: {msg}");
    }
}
