//! Bench target `alloc`: see `vmmkit_benches::cases::alloc`.

mod common;

fn main() {
    common::main("alloc", vmmkit_benches::cases::alloc::entries);
}
