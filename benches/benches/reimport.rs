//! Bench target `reimport`: see `vmmkit_benches::cases::reimport`.

mod common;

fn main() {
    common::main("reimport", vmmkit_benches::cases::reimport::entries);
}
