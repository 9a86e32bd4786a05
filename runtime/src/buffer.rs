//! IPC-only (HIP, CUDA): linear device memory and the legacy IPC handle
//! that shares it (`hipIpcGetMemHandle` / `hipIpcOpenMemHandle`,
//! `cuIpcGetMemHandle` / `cuIpcOpenMemHandle`). ACL's tables answer
//! [`Error::is_unsupported`].

use crate::device::Device;
use crate::error::Error;
use crate::mapping::{read_at, write_at};
use crate::types::IpcHandle;

/// Linear device memory (`hipMalloc`, `cuMemAlloc`), freed (`hipFree`,
/// `cuMemFree`) on drop. IPC-only: it exists here to be shared with
/// [`DeviceBuffer::ipc_handle`].
#[derive(Debug)]
pub struct DeviceBuffer {
    dev: Device,
    ptr: u64,
    size: usize,
    freed: bool,
}

impl DeviceBuffer {
    pub(crate) fn new(dev: &Device, size: usize) -> Result<Self, Error> {
        dev.bind()?;
        let ptr = dev.api().malloc(size)?;
        Ok(Self { dev: dev.clone(), ptr, size, freed: false })
    }

    /// The first device address.
    pub fn addr(&self) -> *mut std::ffi::c_void {
        self.ptr as usize as *mut std::ffi::c_void
    }

    /// Bytes.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Its legacy IPC handle (`hipIpcGetMemHandle`, `cuIpcGetMemHandle`),
    /// for another process's [`Device::open_ipc`].
    ///
    /// # Errors
    /// The vendor's code.
    pub fn ipc_handle(&self) -> Result<IpcHandle, Error> {
        // SAFETY: `ptr` is our live allocation.
        unsafe { self.dev.api().ipc_get(self.ptr) }.map(IpcHandle)
    }

    /// Copies `src` in at `offset` (host to device).
    ///
    /// # Errors
    /// The vendor's code.
    ///
    /// # Panics
    /// If the range does not fit.
    pub fn write(&self, offset: usize, src: &[u8]) -> Result<(), Error> {
        write_at(&self.dev, self.ptr, self.size, offset, src)
    }

    /// Copies out from `offset` into `dst` (device to host).
    ///
    /// # Errors
    /// The vendor's code.
    ///
    /// # Panics
    /// If the range does not fit.
    pub fn read(&self, offset: usize, dst: &mut [u8]) -> Result<(), Error> {
        read_at(&self.dev, self.ptr, self.size, offset, dst)
    }

    /// Frees now, with the driver's code.
    ///
    /// # Errors
    /// The vendor's code.
    pub fn free(mut self) -> Result<(), Error> {
        self.free_once()
    }

    fn free_once(&mut self) -> Result<(), Error> {
        if std::mem::replace(&mut self.freed, true) {
            return Ok(());
        }
        // SAFETY: `ptr` is our allocation, freed once (`freed`).
        unsafe { self.dev.api().free_linear(self.ptr) }
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        if let Err(e) = self.free_once() {
            self.dev.shared().record(e);
        }
    }
}

/// Another process's [`DeviceBuffer`], opened here from its [`IpcHandle`]
/// (`hipIpcOpenMemHandle`, `cuIpcOpenMemHandle` with lazy peer access) and
/// closed (`hipIpcCloseMemHandle`, `cuIpcCloseMemHandle`) on drop. IPC-only.
///
/// The legacy handle does not carry the size: the exporter sends it along.
#[derive(Debug)]
pub struct IpcMemory {
    dev: Device,
    ptr: u64,
    size: usize,
    closed: bool,
}

impl IpcMemory {
    pub(crate) fn open(dev: &Device, handle: &IpcHandle, size: usize) -> Result<Self, Error> {
        dev.bind()?;
        let ptr = dev.api().ipc_open(&handle.0)?;
        Ok(Self { dev: dev.clone(), ptr, size, closed: false })
    }

    /// The device address where it is open in this process.
    pub fn addr(&self) -> *mut std::ffi::c_void {
        self.ptr as usize as *mut std::ffi::c_void
    }

    /// Bytes, as the exporter said.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Copies `src` in at `offset` (host to device).
    ///
    /// # Errors
    /// The vendor's code.
    ///
    /// # Panics
    /// If the range does not fit in the size given to [`Device::open_ipc`].
    pub fn write(&self, offset: usize, src: &[u8]) -> Result<(), Error> {
        write_at(&self.dev, self.ptr, self.size, offset, src)
    }

    /// Copies out from `offset` into `dst` (device to host).
    ///
    /// # Errors
    /// The vendor's code.
    ///
    /// # Panics
    /// If the range does not fit in the size given to [`Device::open_ipc`].
    pub fn read(&self, offset: usize, dst: &mut [u8]) -> Result<(), Error> {
        read_at(&self.dev, self.ptr, self.size, offset, dst)
    }

    /// Closes now, with the driver's code.
    ///
    /// # Errors
    /// The vendor's code.
    pub fn close(mut self) -> Result<(), Error> {
        self.close_once()
    }

    fn close_once(&mut self) -> Result<(), Error> {
        if std::mem::replace(&mut self.closed, true) {
            return Ok(());
        }
        // SAFETY: `ptr` was opened by us, closed once (`closed`).
        unsafe { self.dev.api().ipc_close(self.ptr) }
    }
}

impl Drop for IpcMemory {
    fn drop(&mut self) {
        if let Err(e) = self.close_once() {
            self.dev.shared().record(e);
        }
    }
}

impl Device {
    /// IPC-only (HIP, CUDA): `size` bytes of linear device memory
    /// (`hipMalloc`, `cuMemAlloc`), to share with a legacy IPC handle.
    ///
    /// # Errors
    /// The vendor's code; on ACL [`Error::is_unsupported`].
    pub fn malloc(&self, size: usize) -> Result<DeviceBuffer, Error> {
        DeviceBuffer::new(self, size)
    }

    /// IPC-only (HIP, CUDA): opens another process's buffer of `size`
    /// bytes from its legacy IPC handle (`hipIpcOpenMemHandle`,
    /// `cuIpcOpenMemHandle`).
    ///
    /// # Errors
    /// The vendor's code (e.g. a handle of this very process); on ACL
    /// [`Error::is_unsupported`].
    pub fn open_ipc(&self, handle: &IpcHandle, size: usize) -> Result<IpcMemory, Error> {
        IpcMemory::open(self, handle, size)
    }
}
