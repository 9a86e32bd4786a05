//! CUDA checks, one module per API family (as the catalog's groups).
//!
//! Each check retains device 0's primary context and makes it current on
//! its thread, sets up what it needs through the table, provokes exactly
//! its rule, and compares the exact code with the catalog's (cuda.md §3).
//! Calls the CUDA docs call undefined (releasing an invalid handle) are
//! never made: the checks must be safe to run on a real driver. Rules about
//! a second process start a CUDA peer (`crate::cuda::peer`) that opens the
//! IPC handle.
#![forbid(unsafe_code)]

pub mod copy;
pub mod event;
pub mod fork;
pub mod general;
pub mod graph;
pub mod ipc;
pub mod pool;
pub mod share;
pub mod stream;
pub mod vmm;
