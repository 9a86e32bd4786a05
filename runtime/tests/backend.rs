//! Backend selection as a program sees it: `VMMKIT_BACKEND` forces one (an
//! invalid value is a clear error), and otherwise a real library must load
//! and have a device, else the emulator runs. Each test runs in a process of
//! its own, with the environment it needs.

mod common;

use common::isolated;
use vmmkit_runtime::{Backend, OpenError, Runtime, Vendor};

#[test]
fn an_invalid_vmmkit_backend_is_a_clear_error() {
    isolated(&[("VMMKIT_BACKEND", "npu".into())], || {
        let e = Runtime::auto().expect_err("npu is no backend");
        let OpenError::Select(s) = &e else { panic!("expected a selection error, got {e}") };
        assert_eq!(s.value, "npu");
        assert_eq!(
            e.to_string(),
            "VMMKIT_BACKEND=\"npu\": not a backend; expected one of emulator (= emulator-acl), emulator-hip, \
             emulator-cuda, ascend, hip, cuda, or auto (the default)"
        );
        assert_eq!(Backend::auto(), Err(s.clone()));
    });
}

#[test]
fn vmmkit_backend_forces_the_emulator() {
    isolated(&[("VMMKIT_BACKEND", "emulator".into())], || {
        let s = Backend::select().expect("a valid value");
        assert_eq!(s.backend, Backend::Emulator);
        assert_eq!(s.reason, "forced by VMMKIT_BACKEND=emulator");
        assert!(s.probes.is_empty(), "a forced backend probes nothing: {s:?}");
        let rt = Runtime::auto().expect("the emulator opens");
        assert_eq!(rt.backend(), &Backend::Emulator);
        assert_eq!(rt.library(), None);
        assert_eq!(rt.device_count(), Ok(2));
    });
}

#[test]
fn vmmkit_backend_ascend_loads_the_library_vmmkit_acl_library_names() {
    let shim = common::shim_env(Vendor::Acl);
    isolated(&[("VMMKIT_BACKEND", "ascend".into()), ("VMMKIT_ACL_LIBRARY", shim.clone())], move || {
        let rt = Runtime::auto().expect("the named library opens");
        assert_eq!(rt.backend(), &Backend::Ascend(None));
        assert_eq!(rt.library(), Some(std::path::Path::new(&shim)));
        assert_eq!(rt.device_count(), Ok(2), "the drop-in reads VMMKIT_DEVICES");
    });
}

/// `VMMKIT_BACKEND=name` opens the emulator's dialect of `vendor`.
fn forced(name: &str, backend: Backend, vendor: Vendor) {
    isolated(&[("VMMKIT_BACKEND", name.into())], || {
        let rt = Runtime::auto().expect("the emulator opens");
        assert_eq!(rt.backend(), &backend);
        assert_eq!(rt.vendor(), vendor);
        assert_eq!(rt.library(), None);
        assert_eq!(rt.device_count(), Ok(2));
    });
}

#[test]
fn vmmkit_backend_forces_the_emulated_acl() {
    forced("emulator-acl", Backend::Emulator, Vendor::Acl);
}

#[test]
fn vmmkit_backend_forces_the_emulated_hip() {
    forced("emulator-hip", Backend::EmulatorHip, Vendor::Hip);
}

#[test]
fn vmmkit_backend_forces_the_emulated_cuda() {
    forced("emulator-cuda", Backend::EmulatorCuda, Vendor::Cuda);
}

#[test]
fn vmmkit_backend_hip_loads_the_library_vmmkit_hip_library_names() {
    let shim = common::shim_env(Vendor::Hip);
    isolated(&[("VMMKIT_BACKEND", "hip".into()), ("VMMKIT_HIP_LIBRARY", shim.clone())], move || {
        let rt = Runtime::auto().expect("the named library opens");
        assert_eq!(rt.backend(), &Backend::Hip(None));
        assert_eq!(rt.vendor(), Vendor::Hip);
        assert_eq!(rt.library(), Some(std::path::Path::new(&shim)));
        assert_eq!(rt.device_count(), Ok(2), "the drop-in reads VMMKIT_DEVICES");
    });
}

#[test]
fn automatic_selection_passes_over_the_drop_in_and_needs_a_device() {
    let shim = common::shim_library(Vendor::Acl);
    let dir = shim.parent().expect("the shim's directory").display().to_string();
    // The drop-in is on the loader's path: an automatic selection must not take it.
    // Both drop-ins (libascendcl.so, and libamdhip64.so once built) are on the loader's path.
    let _ = common::shim_library(Vendor::Hip);
    isolated(&[("LD_LIBRARY_PATH", dir), ("ASCEND_HOME_PATH", String::new()), ("ROCM_PATH", String::new())], || {
        let s = Backend::select().expect("no VMMKIT_BACKEND");
        println!("selected {s}");
        let ascend = &s.probes[0];
        assert_eq!(ascend.backend, Backend::Ascend(None));
        let err = ascend.outcome.as_ref().expect_err("the drop-in is not a real library");
        assert!(err.summary().starts_with("not found (passed over vmmkit's drop-in"), "{}", err.summary());
        let hip = &s.probes[1];
        assert_eq!(hip.backend, Backend::Hip(None));
        let err = hip.outcome.as_ref().expect_err("the HIP drop-in is not a real library");
        assert!(err.summary().starts_with("not found"), "{}", err.summary());
        // A real library wins only with a device; on a machine without one the emulator runs.
        match &s.backend {
            Backend::Emulator => {
                assert!(s.probes.iter().all(|p| p.outcome.as_ref().map_or(true, |f| f.devices == 0)), "{s:?}");
            }
            real => {
                let p = s.probes.iter().find(|p| &p.backend == real).expect("the chosen one was probed");
                assert!(p.outcome.as_ref().is_ok_and(|f| f.devices > 0), "{s:?}");
            }
        }
        // The runtime drives every table; with no real library here, the emulator.
        let r = Runtime::select().expect("no VMMKIT_BACKEND");
        assert_eq!(r.backend, Backend::Emulator, "{r}");
        assert_eq!(Runtime::auto().expect("the emulator opens").device_count(), Ok(2));
    });
}

#[test]
fn an_emulator_that_cannot_start_says_why() {
    isolated(&[("VMMKIT_ROOT", "relative/root".into())], || {
        let e = Runtime::new(Backend::Emulator).expect_err("a relative root is refused");
        let OpenError::Init { source, message, .. } = &e else { panic!("expected an init error, got {e}") };
        assert_eq!(source.call, "aclInit");
        assert_eq!(source.code, vmmkit_sys::acl::AclError::RT_NO_DEVICE);
        let m = message.as_deref().unwrap_or_default();
        assert!(m.contains("VMMKIT_ROOT") && m.contains("must be an absolute path"), "{e}");
        println!("{e}");
    });
}
