//! Bench target `map`: see `vmmkit_benches::cases::map`.

mod common;

fn main() {
    common::main("map", vmmkit_benches::cases::map::entries);
}
