//! The doctor's line for the emulator: its settings, as the emulator reads them.
#![forbid(unsafe_code)]

use vmmkit_emulator::Config;

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
                devices: None,
                error_code: None,
                error_name: None,
                detail: format!("bad setting: {e}"),
            };
        }
    };
    let root_state = match config.root.try_exists() {
        Ok(true) => "",
        Ok(false) => " (created now)",
        Err(_) => " (cannot be inspected)",
    };
    let parts = [
        format!("root {}{root_state}", config.root.display()),
        format!("{} devices × {}", config.devices, bytes(config.device_memory)),
        format!("host access {}", if config.host_access { "on" } else { "off" }),
    ];
    // Start the emulator as a program would (this creates the root if needed),
    // so an unusable root is reported here rather than at a program's first call.
    let (usable, mut parts) = match vmmkit_emulator::core::emulator() {
        Ok(e) => {
            let usage = e.registry().usage();
            let used: u64 = usage.used.iter().sum();
            let mut parts = parts.to_vec();
            parts.push(format!("{} in use across all devices", bytes(used)));
            (true, parts)
        }
        Err(e) => (false, vec![parts[0].clone(), e.to_string()]),
    };
    parts.retain(|p| !p.is_empty());
    Row {
        backend: "emulator",
        usable,
        library: None,
        version,
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
