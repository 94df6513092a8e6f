//! The commands besides `bench`, one file per family: `verify` (JSON Lines and Parquet),
//! the packet pipeline's `gen`, `replay` and `serve`, leanSig's `aggregate` and
//! `verify-aggregate`, and `keygen` and `sign`.

pub mod aggregate;
pub mod keys;
pub mod packets;
mod pipeline_io;
pub mod verify;
mod verify_parquet;
