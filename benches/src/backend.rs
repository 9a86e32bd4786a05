//! Which backends a bench process measures: opened runtimes
//! ([`vmmkit_runtime::Runtime`]) with their devices. The benches speak the
//! runtime's own vocabulary (its owners: [`vmmkit_runtime::PhysicalMemory`],
//! [`vmmkit_runtime::Reservation`], [`vmmkit_runtime::Mapping`],
//! [`vmmkit_runtime::Exported`], [`vmmkit_runtime::Imported`]); this module
//! only chooses and opens.
//!
//! With `VMMKIT_BACKEND` set, that backend alone. Unset (or `auto`): every
//! emulated dialect (ACL, HIP, CUDA, in one process: the emulator serves
//! all three over one root), and before them the real library the
//! runtime's selection finds with a device, if any. Bench ids name the
//! backend (`emulator`, `emulator-hip`, `emulator-cuda`, `ascend`, `hip`,
//! `cuda`), so one run gives a row per operation per backend, each beside
//! the same floor measured in the same process.

use vmmkit_runtime::{Backend, Device, Granularity, Runtime, Sharing, Vendor};

use crate::error::{BenchError, Result};

/// One backend, opened, with devices 0 and (when there is one) 1.
#[derive(Debug)]
pub struct Bk {
    /// Devices kept open for the bench's lifetime, device 0 first (dropped
    /// before the runtime: fields drop in order).
    devices: Vec<Device>,
    rt: Runtime,
    name: &'static str,
}

impl Bk {
    /// Opens `backend` with its devices 0 and 1 (when there are two), device
    /// 0 current on the calling thread.
    ///
    /// # Errors
    /// [`BenchError::Unsupported`] when it has no device, or the failure to open it.
    pub fn open(backend: Backend) -> Result<Self> {
        let name = backend.name();
        let rt = Runtime::new(backend)?;
        let n = rt.device_count()?;
        if n == 0 {
            return Err(BenchError::Unsupported(format!("{name}: no device")));
        }
        let devices = (0..n.min(2)).map(|d| rt.device(d)).collect::<std::result::Result<Vec<_>, _>>()?;
        devices[0].bind()?;
        Ok(Self { devices, rt, name })
    }

    /// The backend's name, as bench ids show it.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The runtime.
    pub fn rt(&self) -> &Runtime {
        &self.rt
    }

    /// The vendor whose C API is underneath.
    pub fn vendor(&self) -> Vendor {
        self.rt.vendor()
    }

    /// Device `i` (0 or 1).
    ///
    /// # Panics
    /// When the backend has fewer devices ([`Bk::device_count`]).
    pub fn dev(&self, i: usize) -> &Device {
        &self.devices[i]
    }

    /// Devices opened (at most 2).
    pub fn device_count(&self) -> u32 {
        self.devices.len() as u32
    }

    /// The minimum granularity on device 0.
    ///
    /// # Errors
    /// The driver's code.
    pub fn granularity(&self) -> Result<usize> {
        Ok(self.devices[0].granularity(Granularity::Minimum)?)
    }

    /// How this vendor shares VMM memory by default: a key with a trustlist
    /// (ACL), a POSIX fd (HIP, CUDA).
    pub fn sharing(&self) -> Sharing {
        self.vendor().vmm_sharing()[0]
    }

    /// Whether shareable handles are 64-bit keys (ACL), not fds.
    pub fn shares_by_key(&self) -> bool {
        !self.sharing().is_fd()
    }

    /// A call through the table that does nothing (the device count), for
    /// the cost of a call.
    ///
    /// # Errors
    /// The driver's code.
    pub fn cheap_call(&self) -> Result<()> {
        self.rt.device_count()?;
        Ok(())
    }
}

/// The backends to measure (see the module documentation).
///
/// # Errors
/// The selection failed (a `VMMKIT_BACKEND` naming no backend), or a
/// backend could not be opened; [`BenchError::Unsupported`] when none has a device.
pub fn open_all() -> Result<Vec<Bk>> {
    let forced = std::env::var(Backend::ENV).ok().filter(|v| !v.is_empty() && v != "auto");
    let backends: Vec<Backend> = match forced {
        Some(_) => vec![Backend::auto().map_err(|e| BenchError::Unsupported(e.to_string()))?],
        None => {
            let real = Backend::auto().ok().filter(|b| !b.is_emulator());
            real.into_iter().chain(Backend::EMULATED).collect()
        }
    };
    let mut out = Vec::new();
    for b in backends {
        match Bk::open(b) {
            Ok(bk) => out.push(bk),
            Err(BenchError::Unsupported(why)) => eprintln!("note: {why}"),
            // A library that is not there (a forced real backend) is not measured.
            Err(BenchError::Open(e)) => eprintln!("note: {e}"),
            Err(e) => return Err(e),
        }
    }
    if out.is_empty() {
        return Err(BenchError::Unsupported("no backend with a device".into()));
    }
    Ok(out)
}
