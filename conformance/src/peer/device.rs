//! The vocabulary of the HIP and CUDA peers, written once: what a check asks
//! its peer ([`Request`]) and what the peer answers ([`Reply`]). Each
//! vendor's peer serves a request with its own calls (`crate::hip::peer`,
//! `crate::cuda::peer`), and its reply carries that vendor's code.
//!
//! New requests go at the end of the enum, so that branches merge.
#![forbid(unsafe_code)]

use std::fmt;
use std::marker::PhantomData;

use serde::{Deserialize, Serialize};

use super::link::{Protocol, VendorReply};

/// What a check asks a HIP or CUDA peer to do; every request gets one
/// [`Reply`] whose `code` is the vendor's code of the call named.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// Makes device `device` current (HIP: `hipSetDevice`; CUDA: `cuInit`,
    /// then the device's primary context retained and made current).
    Start {
        /// The device ordinal.
        device: i32,
    },
    /// Opens the 64 legacy IPC handle bytes (`hipIpcOpenMemHandle`,
    /// `cuIpcOpenMemHandle_v2`): `value` is the pointer.
    IpcOpen {
        /// The handle, as the exporter's bytes.
        handle: Vec<u8>,
        /// `flags`.
        flags: u32,
    },
    /// Closes what IpcOpen opened (`hipIpcCloseMemHandle`, `cuIpcCloseMemHandle`).
    IpcClose {
        /// The pointer IpcOpen returned.
        ptr: u64,
    },
    /// Reads `len` bytes at `ptr` (a copy device to host): `value` is 1
    /// when they are the pattern `seed`; otherwise `text` names the first
    /// differing byte.
    Verify {
        /// Device address.
        ptr: u64,
        /// Bytes.
        len: u64,
        /// Pattern seed.
        seed: u8,
    },
    /// Writes the pattern `seed` over `len` bytes at `ptr` (a copy host to device).
    Fill {
        /// Device address.
        ptr: u64,
        /// Bytes.
        len: u64,
        /// Pattern seed.
        seed: u8,
    },
    /// The fd that comes with the request (`SCM_RIGHTS`) imported as a VMM
    /// handle (`hipMemImportFromShareableHandle`, `cuMemImportFromShareableHandle`)
    /// — as the fd's value cast to a pointer with `by_value`, else as an
    /// `int*` ([HIP-VMM-026](vmmkit_sys::hip::rules::VMM_026)) — then closed; the handle reserved, mapped,
    /// released (the mapping holds it), made read-write for the current
    /// device; then `size` bytes read: `value` is the address, and `text`
    /// names a differing byte when they are not the pattern `seed`.
    ImportMap {
        /// Bytes.
        size: u64,
        /// Pattern seed.
        seed: u8,
        /// Pass the fd by value instead of by pointer.
        by_value: bool,
    },
    /// Unmaps `size` bytes at `ptr` and frees the reservation.
    UnmapFree {
        /// Device address.
        ptr: u64,
        /// Bytes.
        size: u64,
    },
    /// Replies, then exits with status 0.
    Exit,
    /// The pool fd that comes with the request (`SCM_RIGHTS`) imported (the
    /// fd's value cast to a pointer: [HIP-POOL-014](vmmkit_sys::hip::rules::POOL_014), cuda.md §2.1), then the
    /// pointer export data `data` imported into that pool: `value` is the
    /// pointer. The pool is kept until the peer exits (its pointers need it).
    PoolImport {
        /// The 64 bytes of the pointer's export data.
        data: Vec<u8>,
    },
    /// Gives an imported pool pointer back (`hipFreeAsync`, `cuMemFreeAsync`, null stream).
    PoolFree {
        /// The pointer PoolImport returned.
        ptr: u64,
    },
    /// Opens the 64 IPC event handle bytes (`hipIpcOpenEventHandle`,
    /// `cuIpcOpenEventHandle`): `value` is the event, kept until EventClose
    /// or the peer's exit.
    EventOpen {
        /// The handle, as the exporter's bytes.
        handle: Vec<u8>,
    },
    /// Queries an opened event (`hipEventQuery`, `cuEventQuery`): the code.
    EventQuery {
        /// The event EventOpen returned.
        event: u64,
    },
    /// Waits for an opened event's last record: with `stream_wait`, a
    /// non-blocking stream of the peer's own waits on it and is synchronized
    /// (and destroyed); else the event is synchronized. The code of the wait.
    EventWait {
        /// The event EventOpen returned.
        event: u64,
        /// Wait through a stream rather than on the host.
        stream_wait: bool,
    },
    /// Asks an opened event for its elapsed time from itself
    /// (`hipEventElapsedTime`, `cuEventElapsedTime`): the code (an IPC event
    /// keeps no time).
    EventElapsed {
        /// The event EventOpen returned.
        event: u64,
    },
    /// Records an opened event behind a wait that never ends (a stream
    /// waits for a device word nobody writes, `hipStreamWaitValue32`,
    /// `cuStreamWaitValue32`): a record that completes only if the peer
    /// goes on, and never once it is killed. The code of the record.
    EventRecordStuck {
        /// The event EventOpen returned.
        event: u64,
    },
    /// Destroys an opened event (`hipEventDestroy`, `cuEventDestroy`).
    EventClose {
        /// The event EventOpen returned.
        event: u64,
    },
    /// The devices the peer sees, asked first thing (no Start needed):
    /// `value` is the count (`hipGetDeviceCount`; `cuInit`, then
    /// `cuDeviceGetCount`), the code that of the first call that failed;
    /// HIP's `text` lists the PCI address of each device (`hipDeviceGetPCIBusId`),
    /// then, when `ptr` is not 0, `@` and the device `hipPointerGetAttributes` gives it.
    Devices {
        /// A pointer to ask about, or 0.
        ptr: u64,
    },
}

/// A vendor's result code, as its bits travel in a [`Reply`].
pub trait Code: fmt::Display {
    /// The hidden `vmmkit` command that runs this vendor's peer.
    const PEER: &'static str;
    /// The code whose bits are `bits`.
    fn from_bits(bits: u32) -> Self;
}

/// The protocol of the device peer whose replies carry codes `C` (the HIP
/// and CUDA peers: one request vocabulary, one start and one exit).
#[derive(Debug)]
pub struct DeviceProtocol<C>(PhantomData<C>);

impl<C: Code> Protocol for DeviceProtocol<C>
where
    Reply<C>: serde::de::DeserializeOwned,
{
    const ROLE: &'static str = C::PEER;
    type Request = Request;
    type Reply = Reply<C>;

    fn start(device: i32) -> Request {
        Request::Start { device }
    }

    fn exit() -> Request {
        Request::Exit
    }
}

/// A peer's answer, carrying codes of type `C`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reply<C> {
    /// The vendor's code of the call (0 on success), as its bits.
    pub code: u32,
    /// A result value (a pointer, a flag).
    pub value: u64,
    /// The call that failed, or what differed.
    pub text: String,
    #[serde(skip)]
    vendor: PhantomData<C>,
}

impl<C> Default for Reply<C> {
    fn default() -> Self {
        Self { code: 0, value: 0, text: String::new(), vendor: PhantomData }
    }
}

impl<C> Reply<C> {
    /// A reply with the code of bits `code`, naming `call` when it is not success.
    pub fn of(code: u32, call: &str) -> Self {
        Self { code, text: if code == 0 { String::new() } else { call.into() }, ..Self::default() }
    }

    /// This reply with `value`.
    #[must_use]
    pub fn with_value(self, value: u64) -> Self {
        Self { value, ..self }
    }

    /// This reply with `text` (what differed, or the call that failed).
    #[must_use]
    pub fn with_text(self, text: String) -> Self {
        Self { text, ..self }
    }
}

impl<C> Reply<C> {
    /// The answer to [`Request::Verify`] for the bytes read: `value` 1 when
    /// they are the pattern `seed`, else `text` names the first differing byte.
    pub fn pattern(seed: u8, data: &[u8]) -> Self {
        match crate::pattern::first_mismatch(seed, data) {
            None => Self::default().with_value(1),
            Some((at, want, got)) => Self::default().with_text(format!("byte {at} is {got:#04x}, not {want:#04x}")),
        }
    }
}

impl<C: Code> Reply<C> {
    /// The code, as the vendor's type.
    pub fn vendor_code(&self) -> C {
        C::from_bits(self.code)
    }
}

impl<C: Code> VendorReply for Reply<C> {
    fn failed(&self) -> Option<String> {
        (self.code != 0).then(|| self.vendor_code().to_string())
    }

    fn text(&self) -> &str {
        &self.text
    }
}
