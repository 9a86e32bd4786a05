//! Bench target `export`: see `vmmkit_benches::cases::export`.

mod common;

fn main() {
    common::main("export", vmmkit_benches::cases::export::entries);
}
