//! The doctor's lines for the real vendor libraries: load the table, ask
//! the version, count the devices.
//!
//! Every call goes through a `vmmkit-sys` table loaded by its own search
//! (`VMMKIT_*_LIBRARY`, the vendor's environment, the sonames, the default
//! directories). Calls only query: nothing is allocated, and what is
//! initialised is finalised again where the API has a way.

use std::path::Path;
use std::ptr;

use vmmkit_sys::acl::AclError;
use vmmkit_sys::cuda::CuResult;
#[cfg(feature = "example-vendor")]
use vmmkit_sys::example::ExResult;
use vmmkit_sys::hip::{HipError, hip_version_parts};
use vmmkit_sys::{LoadError, Loaded};

use vmmkit_sys::vendor;

use super::Row;
use crate::vendors::Backed;

/// How the doctor probes a vendor's real library: load its table, ask the
/// version, count the devices; only queries.
pub trait Probe: Backed {
    /// The row of the library at `library`, else the one the default search finds.
    fn row(library: Option<&Path>) -> Row;
}

/// A call that returned a failure code, as the report shows it.
struct Failed {
    call: &'static str,
    code: i64,
    name: Option<&'static str>,
    /// `100 hipErrorNoDevice`, or `123 (unknown code)`.
    shown: String,
}

impl Failed {
    fn acl(call: &'static str, e: AclError) -> Self {
        Self { call, code: i64::from(e.0), name: e.name(), shown: e.to_string() }
    }

    fn hip(call: &'static str, e: HipError) -> Self {
        Self { call, code: i64::from(e.0), name: e.name(), shown: e.to_string() }
    }

    fn cuda(call: &'static str, e: CuResult) -> Self {
        Self { call, code: i64::from(e.0), name: e.name(), shown: e.to_string() }
    }
}

/// The facts gathered about one loaded library, turned into a [`Row`] at the end.
struct Findings {
    backend: &'static str,
    library: String,
    version: Option<String>,
    /// The version as the detail line shows it (`HIP 50422803 (5.4.22803)`).
    shown_version: Option<String>,
    /// Parts of the detail line, in order.
    parts: Vec<String>,
}

impl Findings {
    fn new<T>(backend: &'static str, loaded: &Loaded<T>) -> Self {
        let library = loaded.path.display().to_string();
        let mut parts = vec![format!("{library} loaded")];
        if loaded.is_vmmkit_shim {
            parts.push("vmmkit's own drop-in library, not the vendor's".into());
        }
        Self { backend, library, version: None, shown_version: None, parts }
    }

    /// The library reports `version`, shown as `shown`.
    fn version(&mut self, version: String, shown: String) {
        self.parts.push(shown.clone());
        self.version = Some(version);
        self.shown_version = Some(shown);
    }

    /// One of vmmkit's own drop-ins: its devices are the emulator's, read
    /// from the settings rather than by calling it, since any call that
    /// counts devices starts the emulator and creates its root.
    fn drop_in(mut self) -> Row {
        match vmmkit_emulator::Config::from_env() {
            Ok(c) => {
                self.parts.push(format!("{} emulated devices (the emulator's settings; not called)", c.devices));
                self.row(c.devices > 0, Some(c.devices), None)
            }
            Err(e) => {
                self.parts.push(format!("bad emulator setting: {e}"));
                self.row(false, None, None)
            }
        }
    }

    /// Not usable because `failed` returned its code; `why` explains a well-known code.
    fn failed(mut self, failed: &Failed, why: Option<&str>) -> Row {
        let mut text = format!("{} → {}", failed.call, failed.shown);
        if let Some(why) = why {
            text.push_str(&format!(" ({why})"));
        }
        self.parts.push(text);
        self.row(false, None, Some(failed))
    }

    /// The count query succeeded: usable with at least one device.
    fn counted(mut self, call: &str, devices: u32) -> Row {
        self.parts.push(format!("{call} → {devices} device{}", if devices == 1 { "" } else { "s" }));
        self.row(devices > 0, Some(devices), None)
    }

    fn row(self, usable: bool, devices: Option<u32>, failed: Option<&Failed>) -> Row {
        Row {
            backend: self.backend,
            usable,
            library: Some(self.library),
            version: self.version,
            shown_version: self.shown_version,
            devices,
            error_code: failed.map(|f| f.code),
            error_name: failed.and_then(|f| f.name).map(str::to_owned),
            detail: self.parts.join(", "),
        }
    }
}

/// The vendor's library loaded, with its findings begun; else the row
/// saying why it did not load.
fn load<V: Backed>(library: Option<&Path>) -> Result<(Loaded<V::Api>, Findings), Box<Row>> {
    match V::load(library) {
        Ok(loaded) => {
            let f = Findings::new(V::BACKEND.name(), &loaded);
            Ok((loaded, f))
        }
        Err(e) => Err(Box::new(not_loaded(V::BACKEND.name(), &e))),
    }
}

/// A library that did not load: the loader's message says where it looked or what is missing.
fn not_loaded(backend: &'static str, err: &LoadError) -> Row {
    let library = match err {
        LoadError::NotFound { .. } => None,
        LoadError::MissingSymbols { path, .. } | LoadError::Refused { path, .. } => Some(path.display().to_string()),
    };
    Row {
        backend,
        usable: false,
        library,
        version: None,
        shown_version: None,
        devices: None,
        error_code: None,
        error_name: None,
        detail: err.to_string(),
    }
}

impl Probe for vendor::Acl {
    /// Ascend CANN through `libascendcl.so`: `aclrtGetVersion` if exported, then
    /// `aclInit(NULL)`, `aclrtGetDeviceCount`, and `aclFinalize` if this call
    /// initialised. `library` is an explicit file, else the default search.
    fn row(library: Option<&Path>) -> Row {
        let (loaded, mut f) = match load::<Self>(library) {
            Ok(found) => found,
            Err(row) => return *row,
        };
        let api = &loaded.api;
        match api.aclrtGetVersion {
            Some(get_version) => {
                let (mut major, mut minor, mut patch) = (0, 0, 0);
                // SAFETY: the table came from a library exporting the ACL C ABI; the
                // three out-pointers are live locals.
                let rc = AclError(unsafe { get_version(&mut major, &mut minor, &mut patch) });
                if rc.is_success() {
                    let v = format!("{major}.{minor}.{patch}");
                    f.version(v.clone(), format!("ACL {v}"));
                } else {
                    f.parts.push(format!("aclrtGetVersion → {rc}"));
                }
            }
            None => f.parts.push("no aclrtGetVersion".into()),
        }
        if loaded.is_vmmkit_shim {
            return f.drop_in();
        }
        // SAFETY: as above; NULL is the documented "no config file" argument.
        let init = AclError(unsafe { (api.aclInit)(ptr::null()) });
        if !init.is_success() && init != AclError::REPEAT_INITIALIZE {
            let why = (init == AclError::COMPILING_STUB_MODE).then_some("the stub library was loaded");
            return f.failed(&Failed::acl("aclInit", init), why);
        }
        let mut count: u32 = 0;
        // SAFETY: as above; the out-pointer is a live local.
        let rc = AclError(unsafe { (api.aclrtGetDeviceCount)(&mut count) });
        if init.is_success() {
            // SAFETY: as above; pairs with the aclInit that this function made.
            let _ = unsafe { (api.aclFinalize)() };
        }
        if !rc.is_success() {
            let why = (rc == AclError::RT_NO_DEVICE).then_some("no device");
            return f.failed(&Failed::acl("aclrtGetDeviceCount", rc), why);
        }
        f.counted("aclrtGetDeviceCount", count)
    }
}

impl Probe for vendor::Hip {
    /// AMD ROCm through `libamdhip64`: `hipRuntimeGetVersion`, `hipDriverGetVersion`,
    /// `hipGetDeviceCount` (every HIP call initialises the runtime by itself).
    fn row(library: Option<&Path>) -> Row {
        let (loaded, mut f) = match load::<Self>(library) {
            Ok(found) => found,
            Err(row) => return *row,
        };
        let api = &loaded.api;
        let mut runtime = 0;
        // SAFETY: the table came from a library exporting the HIP C ABI; the
        // out-pointer is a live local.
        let rc = HipError(unsafe { (api.hipRuntimeGetVersion)(&mut runtime) });
        if rc.is_success() {
            let (major, minor, patch) = hip_version_parts(runtime);
            f.version(runtime.to_string(), format!("HIP {runtime} ({major}.{minor}.{patch})"));
            let mut driver = 0;
            // SAFETY: as above.
            let rc = HipError(unsafe { (api.hipDriverGetVersion)(&mut driver) });
            if !rc.is_success() {
                f.parts.push(format!("hipDriverGetVersion → {rc}"));
            } else if driver != runtime {
                f.parts.push(format!("driver {driver}"));
            }
        } else {
            f.parts.push(format!("hipRuntimeGetVersion → {rc}"));
        }
        if loaded.is_vmmkit_shim {
            return f.drop_in();
        }
        let mut count: i32 = 0;
        // SAFETY: as above.
        let rc = HipError(unsafe { (api.hipGetDeviceCount)(&mut count) });
        if !rc.is_success() {
            let why = match rc {
                HipError::NO_DEVICE => Some("no device: no GPU, or the runtime sees none"),
                HipError::INVALID_DEVICE => Some("the runtime could not start"),
                _ => None,
            };
            return f.failed(&Failed::hip("hipGetDeviceCount", rc), why);
        }
        f.counted("hipGetDeviceCount", u32::try_from(count).unwrap_or(0))
    }
}

impl Probe for vendor::Cuda {
    /// The NVIDIA driver through `libcuda.so.1`: `cuInit(0)`, `cuDriverGetVersion`,
    /// `cuDeviceGetCount`. `cuInit` returning 100 (no GPU) or 34 (the stub) makes
    /// the backend unusable, as cuda.md §1.1 says.
    fn row(library: Option<&Path>) -> Row {
        let (loaded, mut f) = match load::<Self>(library) {
            Ok(found) => found,
            Err(row) => return *row,
        };
        let api = &loaded.api;
        // SAFETY: the table came from a library exporting the CUDA driver C ABI; 0 is the only valid flag.
        let init = CuResult(unsafe { (api.cuInit)(0) });
        let mut version = 0;
        // SAFETY: as above; the out-pointer is a live local. The version is known even without a GPU.
        let rc = CuResult(unsafe { (api.cuDriverGetVersion)(&mut version) });
        if rc.is_success() {
            f.version(version.to_string(), format!("CUDA {version}"));
        } else {
            f.parts.push(format!("cuDriverGetVersion → {rc}"));
        }
        if !init.is_success() {
            let why = match init {
                CuResult::NO_DEVICE => Some("no device: driver present, no GPU"),
                CuResult::STUB_LIBRARY => Some("the toolkit's stub library was loaded, not the driver"),
                _ => None,
            };
            return f.failed(&Failed::cuda("cuInit(0)", init), why);
        }
        let mut count: i32 = 0;
        // SAFETY: as above.
        let rc = CuResult(unsafe { (api.cuDeviceGetCount)(&mut count) });
        if !rc.is_success() {
            return f.failed(&Failed::cuda("cuDeviceGetCount", rc), None);
        }
        f.counted("cuDeviceGetCount", u32::try_from(count).unwrap_or(0))
    }
}

#[cfg(feature = "example-vendor")]
impl Probe for vendor::Example {
    /// The example vendor's `libexample.so` (docs/adding-a-vendor.md; made
    /// up, so never found): `exInit(0)`, and its one device.
    fn row(library: Option<&Path>) -> Row {
        let (loaded, f) = match load::<Self>(library) {
            Ok(found) => found,
            Err(row) => return *row,
        };
        // SAFETY: the table came from a library exporting the example's C ABI; 0 is the only valid flag.
        let init = ExResult(unsafe { (loaded.api.exInit)(0) });
        if !init.is_success() {
            let failed =
                Failed { call: "exInit(0)", code: i64::from(init.0), name: init.name(), shown: init.to_string() };
            return f.failed(&failed, None);
        }
        f.counted("exInit", 1)
    }
}
