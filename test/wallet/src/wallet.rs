//! The wallet: a `zcash_client_sqlite` database in `--wallet-dir`, holding account 0 of the seed.

use std::path::{Path, PathBuf};

use rand::{rand_core::UnwrapErr, rngs::SysRng};
use secrecy::{ExposeSecret, SecretVec};
use zcash_client_backend::{
    data_api::{AccountBirthday, WalletRead, WalletWrite},
    proto::service::{BlockId, ChainSpec, Empty},
};
use zcash_client_sqlite::{util::SystemClock, wallet::init::init_wallet_db, AccountUuid, WalletDb};
use zcash_keys::{
    address::Address,
    encoding::AddressCodec,
    keys::{UnifiedAddressRequest, UnifiedSpendingKey},
};
use zcash_protocol::consensus::{NetworkType, Parameters};

use crate::{client::WalletClient, params::Params};

/// The public seed of the mobile SDKs' darkside tests (darksidewalletd test data pays it).
pub const DARKSIDE_SEED: &str = "still champion voice habit trend flight survey between bitter \
process artefact blind carbon truly provide dizzy crush flush breeze blouse charge solid fish spread";

pub type Db = WalletDb<rusqlite::Connection, Params, SystemClock, UnwrapErr<SysRng>>;

pub fn seed_from_phrase(phrase: &str) -> Result<SecretVec<u8>, String> {
    let mnemonic = bip0039::Mnemonic::<bip0039::English>::from_phrase(phrase.trim())
        .map_err(|e| format!("--seed-phrase: {e}"))?;
    Ok(SecretVec::new(mnemonic.to_seed("").to_vec()))
}

pub fn usk(params: &Params, seed: &SecretVec<u8>) -> Result<UnifiedSpendingKey, String> {
    UnifiedSpendingKey::from_seed(params, seed.expose_secret(), zip32::AccountId::ZERO)
        .map_err(|e| format!("deriving account 0 keys: {e:?}"))
}

/// Account 0's addresses: the default unified address (every receiver the keys have), its Sapling
/// and Orchard receivers, and the external transparent address at index 0 (the one zcashd-era
/// wallets and `miner_address` use; the wallet database tracks it as the account's legacy address).
pub fn addresses(params: &Params, usk: &UnifiedSpendingKey) -> Result<serde_json::Value, String> {
    use transparent::keys::IncomingViewingKey;
    let ufvk = usk.to_unified_full_viewing_key();
    let (ua, _) = ufvk
        .default_address(UnifiedAddressRequest::SHIELDED)
        .map_err(|e| format!("deriving the shielded address: {e}"))?;
    let (taddr, _) = usk
        .transparent()
        .to_account_pubkey()
        .derive_external_ivk()
        .map_err(|e| format!("deriving the transparent key: {e}"))?
        .default_address();
    let unified = {
        // The unified address with a transparent receiver too, when its diversifier allows one.
        ufvk.default_address(UnifiedAddressRequest::ALLOW_ALL)
            .map(|(ua, _)| ua)
            .unwrap_or_else(|_| ua.clone())
    };
    Ok(serde_json::json!({
        "unified": unified.encode(params),
        "sapling": ua.sapling().map(|pa| Address::Sapling(Box::new(*pa)).encode(params)),
        "orchard": ua.orchard().map(|_| {
            // An Orchard-only unified address: the Orchard receiver on its own.
            zcash_keys::address::UnifiedAddress::from_receivers(ua.orchard().copied(), None, None, None, None)
                .map(|o| o.encode(params))
        }).flatten(),
        "transparent": taddr.encode(params),
    }))
}

pub fn db_path(dir: &Path) -> PathBuf {
    dir.join("wallet.sqlite")
}

pub fn open(dir: &Path, params: Params, seed: &SecretVec<u8>) -> Result<Db, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("--wallet-dir {}: {e}", dir.display()))?;
    let mut db = WalletDb::for_path(db_path(dir), params, SystemClock, UnwrapErr(SysRng))
        .map_err(|e| format!("opening the wallet database: {e}"))?;
    init_wallet_db(&mut db, Some(SecretVec::new(seed.expose_secret().clone())))
        .map_err(|e| format!("initialising the wallet database: {e}"))?;
    Ok(db)
}

/// Account 0 of the seed, created on first use with a birthday whose tree state (at `H - 1`)
/// comes from the server, exactly as a restoring wallet does it.
pub async fn ensure_account(
    db: &mut Db,
    client: &mut WalletClient,
    params: &Params,
    seed: &SecretVec<u8>,
    birthday: Option<u32>,
) -> Result<AccountUuid, String> {
    let ids = db.get_account_ids().map_err(|e| format!("reading accounts: {e}"))?;
    if let Some(id) = ids.first() {
        return Ok(*id);
    }
    let birthday = match birthday {
        Some(h) => h,
        None if params.network_type() == NetworkType::Regtest => 1,
        None => {
            let info = client
                .get_lightd_info(Empty {})
                .await
                .map_err(|e| format!("GetLightdInfo: {e}"))?
                .into_inner();
            u32::try_from(info.sapling_activation_height)
                .map_err(|_| "GetLightdInfo: saplingActivationHeight out of range".to_string())?
        }
    };
    let prior = birthday.saturating_sub(1);
    let tree_state = client
        .get_tree_state(BlockId { height: prior.into(), hash: vec![] })
        .await
        .map_err(|e| format!("GetTreeState({prior}) for the birthday: {e}"))?
        .into_inner();
    let birthday = AccountBirthday::from_treestate(tree_state, None)
        .map_err(|e| format!("birthday tree state at {prior}: {e:?}"))?;
    let (account, _) = db
        .import_account_hd("harness", seed, zip32::AccountId::ZERO, &birthday, None)
        .map_err(|e| format!("creating account 0: {e}"))?;
    use zcash_client_backend::data_api::Account;
    Ok(account.id())
}

/// The server's chain tip (`GetLatestBlock`).
pub async fn server_tip(client: &mut WalletClient) -> Result<u32, String> {
    let tip = client
        .get_latest_block(ChainSpec::default())
        .await
        .map_err(|e| format!("GetLatestBlock: {e}"))?
        .into_inner();
    u32::try_from(tip.height).map_err(|_| format!("GetLatestBlock: height {} out of range", tip.height))
}
