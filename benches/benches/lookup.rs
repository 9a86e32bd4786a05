//! Bench target `lookup`: see `vmmkit_benches::cases::lookup`.

mod common;

fn main() {
    common::main("lookup", vmmkit_benches::cases::lookup::entries);
}
