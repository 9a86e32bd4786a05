//! Bench target `reserve`: see `vmmkit_benches::cases::reserve`.

mod common;

fn main() {
    common::main("reserve", vmmkit_benches::cases::reserve::entries);
}
