//! ACL checks, one module per API family (as the catalog's groups).
//!
//! Each check sets up what it needs through the table (setup failures read
//! "setup: `<call>` returned `<code>`"), provokes exactly its rule, compares the
//! exact code with the catalog's, and where the reference says the state is
//! unchanged, shows that a valid call still works.
#![forbid(unsafe_code)]

pub mod access;
pub mod copy;
pub mod event;
pub mod export;
pub mod fork;
pub mod general;
pub mod granularity;
pub mod host_memory;
pub mod import;
pub mod ipc_event;
pub mod ipc_key;
pub mod lifetime;
pub mod mapping;
pub mod model;
pub mod notify;
pub mod order;
pub mod peer_access;
pub mod physical;
pub mod query;
pub mod reservation;
pub mod retain;
pub mod sample;
pub mod stream;
pub mod trustlist;
pub mod unreachable;
pub mod v2;
pub mod value;

mod sharing;
