//! The doctor's line for the emulator: its settings, as the emulator reads
//! them, and what its root holds. Nothing is created.
#![forbid(unsafe_code)]

use vmmkit_emulator::Config;
use vmmkit_emulator::registry::{OpenError, Registry};

use super::Row;

/// The emulator's root, device count and memory per device, or the setting
/// that makes it unusable.
pub(super) fn row() -> Row {
    let version = Some(format!("vmmkit {}", env!("CARGO_PKG_VERSION")));
    let config = match Config::from_env() {
        Ok(c) => c,
        Err(e) => {
            return Row {
                backend: "emulator",
                usable: false,
                library: None,
                version,
                shown_version: None,
                devices: None,
                error_code: None,
                error_name: None,
                detail: format!("bad setting: {e}"),
            };
        }
    };
    let settings = [
        format!("{} devices × {}", config.devices, bytes(config.device_memory)),
        format!("host access {}", if config.host_access { "on" } else { "off" }),
        vmmkit_emulator::profiles_in_force(|k| std::env::var_os(k)),
    ];
    let root = config.root.display();
    // Read the root as `vmmkit ls` does: nothing is created, and a root that
    // no program has used yet is said to be so.
    let (usable, mut parts) = match Registry::open_existing(&config.root) {
        Ok(reg) => {
            let usage = reg.usage();
            let used: u64 = usage.used.iter().sum();
            let mut parts = vec![format!("root {root}")];
            parts.extend(settings);
            parts.push(format!("{} in use across all devices", bytes(used)));
            if !reg.header_attrs() {
                parts.push(
                    "no user extended attributes on its file system: each export writes its header into a page of the object (slower)"
                        .into(),
                );
            }
            let (devices, capacity) = (usage.used.len(), usage.capacity);
            let running = reg.processes().iter().filter(|p| p.alive).count();
            let same = devices == config.devices as usize && capacity == config.device_memory;
            if !same && running > 0 {
                parts.push(format!(
                    "refused while its {running} running process(es) use it: they set it up for {devices} device(s) × {}",
                    bytes(capacity)
                ));
            }
            (same || running == 0, parts)
        }
        Err(OpenError::NoState(_)) => {
            let why = if config.root.exists() { "exists, no emulator state yet" } else { "not created yet" };
            let mut parts = vec![format!("root {root} ({why}: a program's first call creates it 0700)")];
            parts.extend(settings);
            (true, parts)
        }
        Err(e) => (false, vec![format!("root {root}"), e.to_string()]),
    };
    parts.retain(|p| !p.is_empty());
    Row {
        backend: "emulator",
        usable,
        library: None,
        version,
        shown_version: None,
        devices: Some(config.devices),
        error_code: None,
        error_name: None,
        detail: parts.join(", "),
    }
}

/// `64 GiB`, `512 MiB`, or a plain byte count when no binary unit divides it.
fn bytes(n: u64) -> String {
    if n == 0 {
        return "0 bytes".into();
    }
    for (shift, unit) in [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if n >= 1 << shift && n % (1 << shift) == 0 {
            return format!("{} {unit}", n >> shift);
        }
    }
    format!("{n} bytes")
}

#[cfg(test)]
mod tests {
    use super::bytes;

    #[test]
    fn sizes_in_binary_units() {
        assert_eq!(bytes(64 << 30), "64 GiB");
        assert_eq!(bytes(512 << 20), "512 MiB");
        assert_eq!(bytes(1 << 40), "1 TiB");
        assert_eq!(bytes(4097), "4097 bytes");
    }
}
