//! The block cache `sync::run` downloads into. The library ships only file-system and SQLite
//! `BlockSource`s without the async `BlockCache` half, so this is the in-memory cache of the
//! library's own `BlockCache` doc example: `sync::run` deletes every range right after scanning it,
//! so nothing outlives one call anyway.

use std::{
    collections::BTreeMap,
    sync::{Arc, Mutex},
};

use zcash_client_backend::{
    data_api::{
        chain::{error, BlockCache, BlockSource},
        scanning::ScanRange,
    },
    proto::compact_formats::CompactBlock,
};
use zcash_protocol::consensus::BlockHeight;

#[derive(Debug)]
pub struct CacheError(pub String);

impl std::fmt::Display for CacheError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CacheError {}

#[derive(Clone, Default)]
pub struct MemBlockCache {
    blocks: Arc<Mutex<BTreeMap<u32, CompactBlock>>>,
}

fn height_of(block: &CompactBlock) -> Result<u32, CacheError> {
    u32::try_from(block.height).map_err(|_| CacheError(format!("block height {} out of range", block.height)))
}

impl BlockSource for MemBlockCache {
    type Error = CacheError;

    fn with_blocks<F, WalletErrT>(
        &self,
        from_height: Option<BlockHeight>,
        limit: Option<usize>,
        mut with_block: F,
    ) -> Result<(), error::Error<WalletErrT, Self::Error>>
    where
        F: FnMut(CompactBlock) -> Result<(), error::Error<WalletErrT, Self::Error>>,
    {
        let from = from_height.map_or(0, u32::from);
        let blocks: Vec<CompactBlock> = {
            let map = self.blocks.lock().expect("block cache lock");
            map.range(from..).take(limit.unwrap_or(usize::MAX)).map(|(_, b)| b.clone()).collect()
        };
        for block in blocks {
            with_block(block)?;
        }
        Ok(())
    }
}

#[async_trait::async_trait]
impl BlockCache for MemBlockCache {
    fn get_tip_height(&self, range: Option<&ScanRange>) -> Result<Option<BlockHeight>, Self::Error> {
        let map = self.blocks.lock().expect("block cache lock");
        let tip = match range {
            Some(r) => map
                .range(u32::from(r.block_range().start)..u32::from(r.block_range().end))
                .next_back()
                .map(|(h, _)| *h),
            None => map.keys().next_back().copied(),
        };
        Ok(tip.map(BlockHeight::from_u32))
    }

    async fn read(&self, range: &ScanRange) -> Result<Vec<CompactBlock>, Self::Error> {
        let map = self.blocks.lock().expect("block cache lock");
        Ok(map
            .range(u32::from(range.block_range().start)..u32::from(range.block_range().end))
            .map(|(_, b)| b.clone())
            .collect())
    }

    async fn insert(&self, compact_blocks: Vec<CompactBlock>) -> Result<(), Self::Error> {
        let mut map = self.blocks.lock().expect("block cache lock");
        for block in compact_blocks {
            map.insert(height_of(&block)?, block);
        }
        Ok(())
    }

    async fn delete(&self, range: ScanRange) -> Result<(), Self::Error> {
        let mut map = self.blocks.lock().expect("block cache lock");
        let (start, end) = (u32::from(range.block_range().start), u32::from(range.block_range().end));
        map.retain(|h, _| !(start..end).contains(h));
        Ok(())
    }
}
