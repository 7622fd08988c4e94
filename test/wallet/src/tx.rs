//! Transactions: `send` and `shield` through the library's proposal API with the wallet's real
//! keys and real proofs; `fund` builds a shielded payment from a made-up transparent coin for dev
//! chains whose node does not check inputs.

use std::str::FromStr;

use rand::{rand_core::UnwrapErr, rngs::SysRng, RngExt};
use serde_json::{json, Map, Value};
use zcash_client_backend::{
    data_api::{
        wallet::{
            create_proposed_transactions, input_selection::GreedyInputSelector,
            propose_standard_transfer_to_address, shield_transparent_funds, ConfirmationsPolicy,
            SpendingKeys,
        },
        WalletRead,
    },
    fees::{standard::SingleOutputChangeStrategy, DustOutputPolicy, StandardFeeRule},
    proto::service::RawTransaction,
    wallet::OvkPolicy,
};
use zcash_client_sqlite::{util::SystemClock, AccountUuid};
use zcash_keys::{address::Address, keys::UnifiedSpendingKey};
use zcash_primitives::transaction::{
    builder::{BuildConfig, Builder, BundlePadding},
    fees::zip317,
    Transaction, TxId,
};
use zcash_proofs::prover::LocalTxProver;
use zcash_protocol::{
    consensus::BlockHeight,
    memo::{Memo, MemoBytes},
    value::Zatoshis,
    ShieldedPool,
};

use crate::{client::WalletClient, params::Params, sync::log, wallet::Db, Args};

fn raw(tx: &Transaction) -> Result<Vec<u8>, String> {
    let mut bytes = vec![];
    tx.write(&mut bytes).map_err(|e| format!("serialising the transaction: {e}"))?;
    Ok(bytes)
}

/// Broadcasts the wallet's transactions through `SendTransaction`, in order.
async fn broadcast(
    db: &Db,
    client: &mut WalletClient,
    txids: &[TxId],
    out: &mut Map<String, Value>,
) -> Result<(), String> {
    let mut hexes = vec![];
    for txid in txids {
        let tx = db
            .get_transaction(*txid)
            .map_err(|e| format!("reading transaction {txid}: {e}"))?
            .ok_or_else(|| format!("transaction {txid} is not in the wallet"))?;
        let data = raw(&tx)?;
        hexes.push(hex::encode(&data));
        out.insert("txids".into(), json!(txids.iter().map(|t| t.to_string()).collect::<Vec<_>>()));
        out.insert("rawHex".into(), json!(hexes));
        let reply = client
            .send_transaction(RawTransaction { data, height: 0 })
            .await
            .map_err(|e| format!("SendTransaction {txid}: {e}"))?
            .into_inner();
        if reply.error_code != 0 {
            return Err(format!(
                "SendTransaction {txid}: error {}: {}",
                reply.error_code, reply.error_message
            ));
        }
        log::info(&format!("sent {txid}: {}", reply.error_message));
    }
    Ok(())
}

pub async fn send(
    args: &Args,
    db: &mut Db,
    client: &mut WalletClient,
    params: &Params,
    account: AccountUuid,
    usk: UnifiedSpendingKey,
    out: &mut Map<String, Value>,
) -> Result<(), String> {
    let to_str = args.to.as_deref().ok_or("send: --to is required")?;
    let to = Address::decode(params, to_str).ok_or_else(|| format!("send: --to {to_str:?} is not an address for this network"))?;
    let amount = Zatoshis::from_u64(args.amount.ok_or("send: --amount is required")?)
        .map_err(|_| "send: --amount out of range".to_string())?;
    let memo = match &args.memo {
        Some(text) => Some(MemoBytes::from(
            Memo::from_str(text).map_err(|e| format!("send: --memo: {e:?}"))?,
        )),
        None => None,
    };
    let proposal = propose_standard_transfer_to_address::<_, _, zcash_client_sqlite::wallet::commitment_tree::Error>(
        db,
        params,
        StandardFeeRule::Zip317,
        account,
        ConfirmationsPolicy::MIN,
        &to,
        amount,
        memo,
        None,
        ShieldedPool::Orchard,
        None,
        None,
    )
    .map_err(|e| format!("proposing the transfer: {e}"))?;
    let fee: u64 = proposal.steps().iter().map(|s| u64::from(s.balance().fee_required())).sum();
    out.insert("fee".into(), json!(fee));
    let prover = LocalTxProver::bundled();
    let txids = create_proposed_transactions::<_, _, std::convert::Infallible, _, std::convert::Infallible, _>(
        db,
        params,
        &SystemClock,
        &mut UnwrapErr(SysRng),
        &prover,
        &prover,
        &SpendingKeys::from_unified_spending_key(usk),
        OvkPolicy::Sender,
        &proposal,
        None,
    )
    .map_err(|e| format!("creating the transaction: {e}"))?;
    let txids: Vec<TxId> = txids.into_iter().collect();
    broadcast(db, client, &txids, out).await
}

pub async fn shield(
    db: &mut Db,
    client: &mut WalletClient,
    params: &Params,
    account: AccountUuid,
    usk: UnifiedSpendingKey,
    out: &mut Map<String, Value>,
) -> Result<(), String> {
    let from: Vec<_> = db
        .get_transparent_receivers(account, true, true)
        .map_err(|e| format!("reading transparent receivers: {e}"))?
        .into_keys()
        .collect();
    let prover = LocalTxProver::bundled();
    let change = SingleOutputChangeStrategy::new(
        StandardFeeRule::Zip317,
        None,
        ShieldedPool::Orchard,
        DustOutputPolicy::default(),
    );
    // Shields every transparent output, coinbase included (ZIP 213 lets coinbase go to a
    // shielded pool; the input selector enforces coinbase maturity).
    let txids = shield_transparent_funds(
        db,
        params,
        &SystemClock,
        &mut UnwrapErr(SysRng),
        &prover,
        &prover,
        &GreedyInputSelector::new(),
        &change,
        Zatoshis::ZERO,
        &SpendingKeys::from_unified_spending_key(usk),
        &from,
        account,
        ConfirmationsPolicy::MIN,
    )
    .map_err(|e| format!("shielding: {e}"))?;
    let txids: Vec<TxId> = txids.into_iter().collect();
    broadcast(db, client, &txids, out).await
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Pool {
    Transparent,
    Sapling,
    Orchard,
    Ironwood,
}

/// Builds (does not broadcast) a transaction paying `--count` notes of `--amount` to `--to` in
/// `--pool`, funded by a made-up transparent outpoint signed with a throwaway key: real note
/// commitments, encryption, nullifiers and proofs; only the input is fictitious, which a dev node
/// that does not verify inputs accepts.
pub fn fund(args: &Args, params: &Params, out: &mut Map<String, Value>) -> Result<(), String> {
    let to_str = args.to.as_deref().ok_or("fund: --to is required")?;
    let to = Address::decode(params, to_str)
        .ok_or_else(|| format!("fund: --to {to_str:?} is not an address for this network"))?;
    let amount = Zatoshis::from_u64(args.amount.ok_or("fund: --amount is required")?)
        .map_err(|_| "fund: --amount out of range".to_string())?;
    let count = args.count.unwrap_or(1).max(1);
    let height = BlockHeight::from_u32(args.height.ok_or("fund: --height is required (the height it will be mined at)")?);
    let pool = match args.pool.as_deref().unwrap_or("orchard") {
        "transparent" => Pool::Transparent,
        "sapling" => Pool::Sapling,
        "orchard" => Pool::Orchard,
        "ironwood" => Pool::Ironwood,
        other => return Err(format!("fund: unknown --pool {other:?}")),
    };
    let (transparent_to, sapling_to, orchard_to) = match &to {
        Address::Transparent(t) => (Some(*t), None, None),
        Address::Sapling(pa) => (None, Some(**pa), None),
        Address::Unified(ua) => (ua.transparent().copied(), ua.sapling().copied(), ua.orchard().copied()),
        _ => (None, None, None),
    };
    let own = crate::wallet::usk(
        params,
        &crate::wallet::seed_from_phrase(args.seed_phrase.as_deref().unwrap_or(crate::wallet::DARKSIDE_SEED))?,
    )?;
    let own_orchard = own.to_unified_full_viewing_key().orchard().cloned();
    // Signs the zero-valued spends the builder fabricates for wallet-controlled change.
    let own_sak = [orchard::keys::SpendAuthorizingKey::from(own.orchard())];
    let fee_rule = zip317::FeeRule::standard();
    let sk = secp256k1::SecretKey::from_secret_bytes([0x11; 32]).expect("a valid throwaway key");
    let pubkey = sk.public_key();
    let coin_script = transparent::address::TransparentAddress::from_pubkey(&pubkey).script();
    let mut rng = UnwrapErr(SysRng);
    let prevout_txid: [u8; 32] = rng.random();

    // Built twice: once to learn the ZIP 317 fee of exactly this shape, once funded with it.
    let make = |input: Zatoshis| -> Result<Builder<Params, ()>, String> {
        let empty_o = Some(orchard::Anchor::empty_tree());
        let config = BuildConfig::Standard {
            sapling_anchor: (pool == Pool::Sapling).then(sapling::Anchor::empty_tree),
            orchard_anchor: if pool == Pool::Orchard { empty_o } else { None },
            ironwood_anchor: if pool == Pool::Ironwood { empty_o } else { None },
            orchard_padding: BundlePadding::DEFAULT,
            ironwood_padding: BundlePadding::DEFAULT,
        };
        let mut b = Builder::new(*params, height, config);
        for _ in 0..count {
            let memo = MemoBytes::empty();
            match pool {
                Pool::Transparent => b
                    .add_transparent_output(
                        &transparent_to.ok_or("fund: --to has no transparent receiver")?,
                        amount,
                    )
                    .map_err(|e| format!("{e:?}")),
                Pool::Sapling => b
                    .add_sapling_output::<zip317::FeeError>(
                        None,
                        sapling_to.ok_or("fund: --to has no Sapling receiver")?,
                        amount,
                        memo,
                    )
                    .map_err(|e| e.to_string()),
                Pool::Orchard => {
                    let recipient = orchard_to.ok_or("fund: --to has no Orchard receiver")?;
                    match b.add_orchard_output::<zip317::FeeError>(None, recipient, amount, memo.clone()) {
                        // From NU6.3 the Orchard pool takes no cross-address outputs; a note to
                        // the seed's own account is still possible as wallet-controlled change
                        // (the builder pairs it with a zero-valued spend from the same keys).
                        Err(zcash_primitives::transaction::builder::Error::OrchardRecipient(
                            orchard::builder::OutputError::CrossAddressDisabled,
                        )) if own_orchard.as_ref().is_some_and(|f| f.scope_for_address(&recipient).is_some()) => b
                            .add_orchard_change_output::<zip317::FeeError>(
                                own_orchard.clone().expect("checked"),
                                None,
                                recipient,
                                amount,
                                memo,
                            )
                            .map_err(|e| e.to_string()),
                        other => other.map_err(|e| {
                            format!("{e} (from NU6.3 only the --seed-phrase's own Orchard address can be funded)")
                        }),
                    }
                }
                Pool::Ironwood => b
                    .add_ironwood_output::<zip317::FeeError>(
                    None,
                    orchard_to.ok_or("fund: --to has no Orchard receiver (Ironwood pays Orchard addresses)")?,
                    amount,
                    memo,
                )
                .map_err(|e| e.to_string()),
            }
            .map_err(|e| format!("fund: adding an output at height {height}: {e}"))?;
        }
        b.add_transparent_p2pkh_input(
            pubkey,
            transparent::bundle::OutPoint::new(prevout_txid, 0),
            transparent::bundle::TxOut::new(input, coin_script.clone().into()),
        )
        .map_err(|e| format!("fund: adding the input: {e:?}"))?;
        Ok(b)
    };
    let fee = make(Zatoshis::ZERO)?
        .get_fee(&fee_rule)
        .map_err(|e| format!("fund: computing the fee: {e:?}"))?;
    let total = (0..count)
        .try_fold(fee, |acc, _| acc + amount)
        .ok_or("fund: amount overflows")?;
    let builder = make(total)?;
    let mut signing = transparent::builder::TransparentSigningSet::new();
    signing.add_key(sk);
    let prover = LocalTxProver::bundled();
    let built = builder
        .build(&signing, &[], &own_sak, rng, &prover, &prover, &fee_rule)
        .map_err(|e| format!("fund: building: {e}"))?;
    let tx = built.transaction();
    out.insert("txid".into(), json!(tx.txid().to_string()));
    out.insert("rawHex".into(), json!(hex::encode(raw(tx)?)));
    out.insert("fee".into(), json!(u64::from(fee)));
    out.insert("version".into(), json!(format!("{:?}", tx.version())));
    Ok(())
}
