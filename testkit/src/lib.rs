//! What vmmkit's tests, its conformance suite and its benches share when
//! they run more than one process: written once here, not per crate.
//!
//! - [`Channel`]: one end of a `SOCK_SEQPACKET` socketpair; a message is one
//!   packet, may carry fds (`SCM_RIGHTS`), and every receive has a deadline
//!   whose error says how long it waited.
//! - [`Peer`]: a process started with a [`Channel`] as its stdin (the current
//!   executable re-run in a role, or any other); a peer that dies is an error
//!   carrying how it ended, and a live one is killed and reaped on drop.
//!   Each user keeps its own message types; the transport is generic.
//! - [`TestRoot`]: a fresh emulator root in a temporary directory, handed to
//!   children through their environment ([`TestRoot::apply`]), never through
//!   this process's; removed on drop, with [`TestRoot::leftovers`] to check
//!   that nothing outlived a test.
//! - [`wait`]: a child's exit awaited under `poll` on a pidfd with a deadline
//!   (no sleep loops); a child past it is killed, and the error says how long
//!   it was given.
//! - [`tools`]: the compiler and binutils runs of the shims' tests.
//! - [`coverage`]: `docs/api-coverage.md`, what each drop-in does with each
//!   function of the vendor's runtime headers.
//! - [`hip`]: Debian's HIP runtime and headers, fetched by
//!   `scripts/fetch-hip.sh`, or the reason to skip.
//! - [`vendor_call!`], [`vendor_ok!`], [`vendor_expect!`]: calls through a
//!   vendor table with exact codes, for every vendor's tests.
//!
//! ```
//! use std::time::Duration;
//! use vmmkit_testkit::Channel;
//!
//! let (a, b) = Channel::pair().unwrap();
//! let b = Channel::from_fd(b);
//! a.send(b"ping", &[]).unwrap();
//! let (msg, fds) = b.recv(Duration::from_secs(5)).unwrap();
//! assert_eq!((msg.as_slice(), fds.len()), (&b"ping"[..], 0));
//! ```
//!
//! This crate depends on `vmmkit-sys` at most, never on the emulator: the
//! emulator's own tests use it, and a cycle would link two emulators.
#![forbid(unsafe_code)]

pub mod call;
pub mod channel;
pub mod coverage;
pub mod exit;
pub mod harness;
pub mod hip;
pub mod libtest;
pub mod peer;
pub mod process;
pub mod root;
pub mod tools;
pub mod wait;

pub use channel::{Channel, RecvError};
pub use exit::Exit;
pub use peer::{Peer, PeerError};
pub use process::Process;
pub use root::TestRoot;
pub use wait::WaitError;
