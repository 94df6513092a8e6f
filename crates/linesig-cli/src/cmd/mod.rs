//! The commands besides `bench`, one file per family: `verify` (JSON Lines and Parquet),
//! the packet pipeline's `gen`, `replay` and `serve`, leanSig's `aggregate` and
//! `verify-aggregate`, and `keygen` and `sign` (leanSig in `keys`, leanXMSS in
//! `leanxmss_keys`).

pub mod aggregate;
pub mod keys;
mod leanxmss_keys;
pub mod packets;
mod pipeline_io;
pub mod signing;
pub mod verify;
mod verify_parquet;
