//! What ACL writes for the runtime: its [`Facts`] and its [`Driver`] over
//! the result functions of this module, and its conversions of the
//! runtime's values.

use std::ffi::c_void;
use std::sync::Mutex;

use vmmkit_sys::acl::{
    ACL_HBM_MEM, ACL_MEM_ALLOCATION_TYPE_PINNED, ACL_MEM_HANDLE_TYPE_NONE, ACL_MEM_LOCATION_TYPE_DEVICE,
    ACL_MEM_LOCATION_TYPE_HOST, ACL_MEMCPY_DEVICE_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_HOST_TO_DEVICE,
    ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED, ACL_RT_VMM_EXPORT_FLAG_DEFAULT,
    ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION, AclApi, AclError, aclrtMemAccessDesc, aclrtMemLocation,
    aclrtPhysicalMemProp, rules,
};
use vmmkit_sys::vendor::Acl;

use crate::driver::{Driver, Facts, InitGuard, Vendor, lock, ptr};
use crate::error::Error;
use crate::types::{Access, Dir, Granularity, Location, PhysicalProps, Sharing};

impl Location {
    pub(crate) fn to_acl(self) -> aclrtMemLocation {
        let (type_, id) = self.parts(ACL_MEM_LOCATION_TYPE_HOST, ACL_MEM_LOCATION_TYPE_DEVICE);
        aclrtMemLocation { id, type_ }
    }
}

impl PhysicalProps {
    /// The ACL property record (handle type NONE, PINNED, reserve 0).
    pub fn to_acl(&self) -> aclrtPhysicalMemProp {
        aclrtPhysicalMemProp {
            handleType: ACL_MEM_HANDLE_TYPE_NONE,
            allocationType: ACL_MEM_ALLOCATION_TYPE_PINNED,
            memAttr: self.acl_mem_attr,
            location: self.location.to_acl(),
            reserve: 0,
        }
    }
}

impl Facts for Acl {
    const NOT_SUPPORTED: AclError = AclError::RT_FEATURE_NOT_SUPPORT;
    /// A 64-bit key, with or without a trustlist.
    const VMM_SHARING: &'static [Sharing] = &[Sharing::Trustlist, Sharing::AnyProcess];

    fn emulator() -> AclApi {
        vmmkit_emulator::acl::api()
    }
}

impl Driver for AclApi {
    fn vendor(&self) -> Vendor {
        Vendor::Acl
    }

    fn init(&self) -> Result<InitGuard, Error> {
        Init::share(self).map(InitGuard::new)
    }

    /// The emulator's text repeats the call and the code; keep the reason.
    fn init_message(&self, failure: &Error) -> Option<String> {
        super::get_recent_err_msg(self).map(|m| {
            let suffix = format!(" ({})", failure.code);
            let m = m.strip_prefix("aclInit: ").unwrap_or(&m);
            m.strip_suffix(suffix.as_str()).unwrap_or(m).to_owned()
        })
    }

    /// ACL's import names its device and needs only some context ([ACL-IMP-008](vmmkit_sys::acl::rules::IMP_008)).
    fn lacks_context(&self, e: &Error) -> bool {
        rules::IMP_008.lists(e.code)
    }

    fn device_count(&self) -> Result<u32, Error> {
        super::get_device_count(self)
    }

    /// `aclrtSetDevice`, then the device's default context.
    fn open_device(&self, id: i32) -> Result<usize, Error> {
        super::set_device(self, id)?;
        super::get_current_context(self).map(|c| c as usize).inspect_err(|_| {
            let _ = super::reset_device(self, id);
        })
    }

    fn close_device(&self, id: i32) -> Result<(), Error> {
        super::reset_device(self, id)
    }

    unsafe fn bind(&self, _id: i32, ctx: usize) -> Result<(), Error> {
        // SAFETY: the caller's contract: a live context.
        unsafe { super::set_current_context(self, ctx as *mut c_void) }
    }

    fn granularity(&self, props: &PhysicalProps, which: Granularity) -> Result<usize, Error> {
        let option = which.pick(ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED);
        super::mem_get_allocation_granularity(self, &props.to_acl(), option)
    }

    fn mem_info(&self) -> Result<(usize, usize), Error> {
        super::get_mem_info(self, ACL_HBM_MEM)
    }

    fn alloc(&self, size: usize, props: &PhysicalProps) -> Result<u64, Error> {
        super::malloc_physical(self, size, &props.to_acl(), 0).map(|h| h as u64)
    }

    unsafe fn free(&self, handle: u64) -> Result<(), Error> {
        // SAFETY: the caller's contract.
        unsafe { super::free_physical(self, ptr(handle)) }
    }

    fn reserve(&self, size: usize) -> Result<u64, Error> {
        super::reserve_mem_address(self, size, 0, None, 0).map(|p| p as u64)
    }

    unsafe fn release(&self, va: u64, _size: usize) -> Result<(), Error> {
        // SAFETY: the caller's contract.
        unsafe { super::release_mem_address(self, ptr(va)) }
    }

    unsafe fn map(&self, va: u64, size: usize, handle: u64) -> Result<(), Error> {
        // SAFETY: the caller's contract.
        unsafe { super::map_mem(self, ptr(va), size, 0, ptr(handle), 0) }
    }

    unsafe fn unmap(&self, va: u64, _size: usize) -> Result<(), Error> {
        // SAFETY: the caller's contract.
        unsafe { super::unmap_mem(self, ptr(va)) }
    }

    unsafe fn set_access(&self, va: u64, size: usize, loc: Location, access: Access) -> Result<(), Error> {
        let d = aclrtMemAccessDesc { flags: access.flags() as _, location: loc.to_acl(), rsv: [0; 12] };
        // SAFETY: the caller's contract.
        unsafe { super::mem_set_access(self, ptr(va), size, &[d]) }
    }

    unsafe fn get_access(&self, va: u64, loc: Location) -> Result<u64, Error> {
        // SAFETY: the caller's contract.
        unsafe { super::mem_get_access(self, ptr(va), loc.to_acl()) }
    }

    unsafe fn copy(&self, dst: u64, src: u64, len: usize, dir: Dir) -> Result<(), Error> {
        let kind = dir.pick(ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_DEVICE_TO_DEVICE);
        // SAFETY: the caller's contract.
        unsafe { super::memcpy(self, ptr(dst), len, ptr(src), len, kind) }
    }

    unsafe fn export_key(&self, handle: u64, sharing: Sharing) -> Result<u64, Error> {
        let flags = match sharing {
            Sharing::Trustlist => ACL_RT_VMM_EXPORT_FLAG_DEFAULT,
            Sharing::AnyProcess => ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION,
            Sharing::PosixFd => {
                return Err(self.unsupported("PhysicalMemory::export", "ACL shares by 64-bit key, not by fd"));
            }
        };
        // SAFETY: the caller's contract.
        unsafe { super::mem_export_to_shareable_handle(self, ptr(handle), ACL_MEM_HANDLE_TYPE_NONE, flags) }
    }

    fn set_pids(&self, key: u64, pids: &[i32]) -> Result<(), Error> {
        super::mem_set_pid_to_shareable_handle(self, key, pids)
    }

    fn import_key(&self, key: u64, device: i32) -> Result<u64, Error> {
        super::mem_import_from_shareable_handle(self, key, device).map(|h| h as u64)
    }

    /// `aclrtDeviceGetBareTgid`, which differs from `getpid()` in containers.
    fn host_pid(&self) -> Result<i32, Error> {
        super::device_get_bare_tgid(self)
    }
}

/// One initialisation of one ACL library.
#[derive(Debug)]
struct Inited {
    /// The address of the library's `aclInit`: tells libraries apart.
    key: usize,
    /// Live runtimes over it.
    users: usize,
    /// Whether our `aclInit` succeeded (else someone else initialised it, and
    /// someone else finalises it).
    ours: bool,
}

/// The ACL libraries that runtimes of this process have initialised.
///
/// Why a global: `aclInit` and `aclFinalize` act on the whole process
/// ([ACL-GEN-001](vmmkit_sys::acl::rules::GEN_001): a second `aclInit` fails; [ACL-GEN-002](vmmkit_sys::acl::rules::GEN_002): `aclFinalize` tears
/// down everything), so two runtimes over one library must share one
/// initialisation and finalise once, after the last of them. Only
/// [`Init::share`] and its `Drop` take this lock. (`hipInit` and `cuInit`
/// may be called any number of times and have no finalisation.)
static INITS: Mutex<Vec<Inited>> = Mutex::new(Vec::new());

/// A runtime's share of its ACL library's initialisation: the last one
/// dropped finalises, if our `aclInit` initialised it.
#[derive(Debug)]
struct Init {
    api: AclApi,
    /// Its key in [`INITS`].
    key: usize,
}

impl Init {
    fn share(api: &AclApi) -> Result<Self, Error> {
        let key = api.aclInit as usize;
        let mut inits = lock(&INITS);
        if let Some(i) = inits.iter_mut().find(|i| i.key == key) {
            i.users += 1;
            return Ok(Self { api: *api, key });
        }
        let ours = match super::init(api, None) {
            Ok(()) => true,
            // Initialised by the program itself: it finalises too.
            Err(e) if e.code == AclError::REPEAT_INITIALIZE => false,
            Err(e) => return Err(e),
        };
        inits.push(Inited { key, users: 1, ours });
        Ok(Self { api: *api, key })
    }
}

impl Drop for Init {
    fn drop(&mut self) {
        let mut inits = lock(&INITS);
        let Some(at) = inits.iter().position(|i| i.key == self.key) else { return };
        inits[at].users -= 1;
        if inits[at].users > 0 {
            return;
        }
        let last = inits.swap_remove(at);
        if last.ours
            && let Err(e) = super::finalize(&self.api)
        {
            tracing::warn!(target: "vmmkit::runtime", "{e}");
        }
    }
}
