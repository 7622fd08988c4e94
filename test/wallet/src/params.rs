//! Consensus parameters for the three networks the harness speaks. Mainnet and testnet are the
//! crates' own constants; regtest takes its activation heights from the command line, because a
//! Regtest node (zebrad, zcashd, lightedge's dev node) chooses them in its own configuration.

use zcash_protocol::{
    consensus::{BlockHeight, MainNetwork, NetworkType, NetworkUpgrade, Parameters, TestNetwork},
    local_consensus::LocalNetwork,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Params {
    Main,
    Test,
    Regtest(LocalNetwork),
}

impl Parameters for Params {
    fn network_type(&self) -> NetworkType {
        match self {
            Params::Main => NetworkType::Main,
            Params::Test => NetworkType::Test,
            Params::Regtest(_) => NetworkType::Regtest,
        }
    }

    fn activation_height(&self, nu: NetworkUpgrade) -> Option<BlockHeight> {
        match self {
            Params::Main => MainNetwork.activation_height(nu),
            Params::Test => TestNetwork.activation_height(nu),
            Params::Regtest(local) => local.activation_height(nu),
        }
    }
}

/// Every upgrade the crates model, by the names `--regtest-heights` accepts.
const UPGRADES: &[&str] = &[
    "overwinter", "sapling", "blossom", "heartwood", "canopy", "nu5", "nu6", "nu6_1", "nu6_2",
    "nu6_3", "nu7",
];

/// Parses `--network` and `--regtest-heights` (`name=height,...`; `none` = never activates).
/// Unnamed upgrades activate at 1, as on lightedge's synthetic dev chain; NU7 only if named.
pub fn parse(network: &str, heights: Option<&str>) -> Result<Params, String> {
    match network {
        "mainnet" | "main" => return Ok(Params::Main),
        "testnet" | "test" => return Ok(Params::Test),
        "regtest" => {}
        other => return Err(format!("unknown --network {other:?} (mainnet|testnet|regtest)")),
    }
    let one = Some(BlockHeight::from_u32(1));
    let mut net = LocalNetwork {
        overwinter: one,
        sapling: one,
        blossom: one,
        heartwood: one,
        canopy: one,
        nu5: one,
        nu6: one,
        nu6_1: one,
        nu6_2: one,
        nu6_3: one,
        nu7: None,
    };
    for item in heights.unwrap_or("").split(',').filter(|s| !s.is_empty()) {
        let (name, value) = item
            .split_once('=')
            .ok_or_else(|| format!("--regtest-heights: expected name=height, got {item:?}"))?;
        let name = name.trim().to_ascii_lowercase().replace(['.', '-'], "_");
        let height = match value.trim() {
            "none" | "" => None,
            v => Some(BlockHeight::from_u32(v.parse::<u32>().map_err(|_| {
                format!("--regtest-heights: {name}: not a height: {v:?}")
            })?)),
        };
        let slot = match name.as_str() {
            "overwinter" => &mut net.overwinter,
            "sapling" => &mut net.sapling,
            "blossom" => &mut net.blossom,
            "heartwood" => &mut net.heartwood,
            "canopy" => &mut net.canopy,
            "nu5" => &mut net.nu5,
            "nu6" => &mut net.nu6,
            "nu6_1" => &mut net.nu6_1,
            "nu6_2" => &mut net.nu6_2,
            "nu6_3" | "ironwood" => &mut net.nu6_3,
            "nu7" => &mut net.nu7,
            _ => {
                return Err(format!(
                    "--regtest-heights: unknown upgrade {name:?} (known: {})",
                    UPGRADES.join(", ")
                ))
            }
        };
        *slot = height;
    }
    Ok(Params::Regtest(net))
}
