//! lightedge-wallet: the real Zcash wallet library (`zcash_client_backend` + `zcash_client_sqlite`)
//! driven against a lightwalletd-compatible server, reporting one JSON object per command.
//! See README.md for the commands and the output keys.

mod cache;
mod client;
mod params;
mod report;
mod sync;
mod tx;
mod wallet;

use std::{path::PathBuf, process::ExitCode};

use serde_json::{json, Map, Value};

use crate::{client::Transport, sync::log};

const USAGE: &str = "usage: lightedge-wallet <sync|address|send|shield|fund> [options]
  --server URL              http://127.0.0.1:PORT (not needed by address/fund)
  --transport grpc|grpc-web default grpc
  --network mainnet|testnet|regtest   default regtest
  --regtest-heights overwinter=1,sapling=1,...,nu6_3=1   default: every upgrade at 1 (nu7 off)
  --wallet-dir DIR          wallet database directory (reused: a second sync is incremental)
  --seed-phrase \"24 words\"  default: the darkside test seed
  --birthday H              account birthday (default: sapling activation, 1 on regtest)
  --batch-size N            sync batch (default 100)
  send --to ADDR --amount ZAT [--memo TEXT]
  shield
  fund --to ADDR --amount ZAT --pool transparent|sapling|orchard|ironwood [--count N] --height H";

#[derive(Default)]
pub struct Args {
    pub command: String,
    pub server: Option<String>,
    pub transport: Option<String>,
    pub network: Option<String>,
    pub regtest_heights: Option<String>,
    pub wallet_dir: Option<PathBuf>,
    pub seed_phrase: Option<String>,
    pub birthday: Option<u32>,
    pub batch_size: Option<u32>,
    pub to: Option<String>,
    pub amount: Option<u64>,
    pub memo: Option<String>,
    pub pool: Option<String>,
    pub count: Option<u32>,
    pub height: Option<u32>,
}

fn parse_args(argv: &[String]) -> Result<Args, String> {
    let mut args = Args::default();
    let mut it = argv.iter();
    args.command = it.next().ok_or("missing command")?.clone();
    while let Some(flag) = it.next() {
        let mut value = || it.next().cloned().ok_or_else(|| format!("{flag} needs a value"));
        fn num<T: std::str::FromStr>(flag: &str, v: String) -> Result<T, String> {
            v.parse().map_err(|_| format!("{flag}: not a number: {v:?}"))
        }
        match flag.as_str() {
            "--server" => args.server = Some(value()?),
            "--transport" => args.transport = Some(value()?),
            "--network" => args.network = Some(value()?),
            "--regtest-heights" => args.regtest_heights = Some(value()?),
            "--wallet-dir" => args.wallet_dir = Some(PathBuf::from(value()?)),
            "--seed-phrase" => args.seed_phrase = Some(value()?),
            "--birthday" => args.birthday = Some(num(flag, value()?)?),
            "--batch-size" => args.batch_size = Some(num(flag, value()?)?),
            "--to" => args.to = Some(value()?),
            "--amount" => args.amount = Some(num(flag, value()?)?),
            "--memo" => args.memo = Some(value()?),
            "--pool" => args.pool = Some(value()?),
            "--count" => args.count = Some(num(flag, value()?)?),
            "--height" => args.height = Some(num(flag, value()?)?),
            other => return Err(format!("unknown option {other:?}")),
        }
    }
    Ok(args)
}

/// A command's outcome: `Err` is a usage error (exit 2), `Ok(Err)` a run that failed (exit 1).
type Outcome = Result<Result<(), String>, String>;

async fn run(args: &Args, out: &mut Map<String, Value>) -> Outcome {
    let params = params::parse(
        args.network.as_deref().unwrap_or("regtest"),
        args.regtest_heights.as_deref(),
    )?;
    // Missing or malformed command flags are usage errors (exit 2), caught before any work.
    let needs: &[(&str, bool)] = match args.command.as_str() {
        "send" => &[("--to", args.to.is_some()), ("--amount", args.amount.is_some())],
        "fund" => &[
            ("--to", args.to.is_some()),
            ("--amount", args.amount.is_some()),
            ("--height", args.height.is_some()),
        ],
        _ => &[],
    };
    if let Some((flag, _)) = needs.iter().find(|(_, present)| !present) {
        return Err(format!("{}: {flag} is required", args.command));
    }
    if let Some(pool) = &args.pool {
        if !["transparent", "sapling", "orchard", "ironwood"].contains(&pool.as_str()) {
            return Err(format!("unknown --pool {pool:?} (transparent|sapling|orchard|ironwood)"));
        }
    }
    let seed = wallet::seed_from_phrase(args.seed_phrase.as_deref().unwrap_or(wallet::DARKSIDE_SEED))?;
    let usk = wallet::usk(&params, &seed)?;
    match args.command.as_str() {
        "address" => {
            let addrs = wallet::addresses(&params, &usk)?;
            if let Value::Object(map) = addrs {
                out.extend(map);
            }
            Ok(Ok(()))
        }
        "fund" => Ok(tx::fund(args, &params, out)),
        "sync" | "send" | "shield" => {
            let server = args.server.as_deref().ok_or("--server is required")?;
            let transport = Transport::parse(args.transport.as_deref().unwrap_or("grpc"))?;
            let dir = args.wallet_dir.clone().ok_or("--wallet-dir is required")?;
            let mut client = client::connect(server, transport)?;
            Ok(async {
                let mut db = wallet::open(&dir, params, &seed)?;
                let account =
                    wallet::ensure_account(&mut db, &mut client, &params, &seed, args.birthday).await?;
                let db_path = wallet::db_path(&dir);
                let batch = args.batch_size.unwrap_or(sync::DEFAULT_BATCH);
                let mut sync_out = Map::new();
                let synced =
                    sync::run(&mut db, &db_path, &mut client, &params, account, batch, &mut sync_out).await;
                if args.command == "sync" {
                    out.extend(sync_out);
                    return synced;
                }
                synced.map_err(|e| format!("sync before {}: {e}", args.command))?;
                if args.command == "send" {
                    tx::send(args, &mut db, &mut client, &params, account, usk, out).await
                } else {
                    tx::shield(&mut db, &mut client, &params, account, usk, out).await
                }
            }
            .await)
        }
        other => Err(format!("unknown command {other:?}")),
    }
}

fn main() -> ExitCode {
    // The library logs through `tracing` (batches, reorg rewinds); stderr, `RUST_LOG` to tune.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let mut out = Map::new();
    let outcome: Outcome = match parse_args(&argv) {
        Err(e) => Err(e),
        Ok(args) => tokio::runtime::Runtime::new()
            .map_err(|e| format!("tokio runtime: {e}"))
            .and_then(|rt| rt.block_on(run(&args, &mut out))),
    };
    let (ok, error, code) = match outcome {
        Ok(Ok(())) => (true, Value::Null, 0),
        Ok(Err(e)) => (false, json!(e), 1),
        Err(e) => {
            log::error(&format!("{e}\n{USAGE}"));
            (false, json!(e), 2)
        }
    };
    let mut report = Map::new();
    report.insert("ok".into(), json!(ok));
    report.insert("error".into(), error);
    report.extend(out);
    println!("{}", Value::Object(report));
    ExitCode::from(code)
}
