//! `Debug` for the opaque byte handles of the vendors (IPC memory and event
//! handles, pool export data, fabric handles): the type's name and its
//! bytes in hex up to the last one that is not zero, so that a trace line
//! shows the handle a call produced in a few characters rather than as an
//! array of 64 numbers.

use std::fmt;

/// Writes `name(hex…)`: the bytes up to the last non-zero one, then the
/// count of zero bytes after it when there are any.
pub(crate) fn fmt_bytes(f: &mut fmt::Formatter<'_>, name: &str, bytes: impl IntoIterator<Item = u8>) -> fmt::Result {
    let bytes: Vec<u8> = bytes.into_iter().collect();
    let used = bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    write!(f, "{name}(")?;
    for b in &bytes[..used] {
        write!(f, "{b:02x}")?;
    }
    match bytes.len() - used {
        0 => write!(f, ")"),
        zeros => write!(f, "{}+{zeros} zero bytes)", if used == 0 { "" } else { " " }),
    }
}

/// `impl Debug` through [`fmt_bytes`] for `Type.field` pairs whose field is
/// an array of bytes (`u8` or `c_char`).
macro_rules! opaque_debug {
    ($($t:ident . $field:ident),* $(,)?) => {$(
        impl ::std::fmt::Debug for $t {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                // `as u8`: the bit pattern of a C `char`, whatever its sign.
                $crate::opaque::fmt_bytes(f, stringify!($t), self.$field.iter().map(|&b| b as u8))
            }
        }
    )*};
}
pub(crate) use opaque_debug;

#[cfg(test)]
mod tests {
    use crate::hip::hipIpcMemHandle_t;

    #[test]
    fn shows_the_bytes_in_use_and_counts_the_zeros() {
        let mut h = hipIpcMemHandle_t::default();
        assert_eq!(format!("{h:?}"), "hipIpcMemHandle_t(+64 zero bytes)");
        h.reserved[0] = 0x7a;
        h.reserved[2] = -1;
        assert_eq!(format!("{h:?}"), "hipIpcMemHandle_t(7a00ff +61 zero bytes)");
        h.reserved[63] = 1;
        assert!(format!("{h:?}").ends_with("01)"));
    }
}
