//! Bench target `calls`: see `vmmkit_benches::cases::calls`.

mod common;

fn main() {
    common::main("calls", vmmkit_benches::cases::calls::entries);
}
