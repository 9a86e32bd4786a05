//! Bench target `copy`: see `vmmkit_benches::cases::copy`.

mod common;

fn main() {
    common::main("copy", vmmkit_benches::cases::copy::entries);
}
