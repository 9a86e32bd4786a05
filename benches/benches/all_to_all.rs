//! Bench target `all_to_all`: see `vmmkit_benches::cases::all_to_all`.

mod common;

fn main() {
    common::main("all_to_all", vmmkit_benches::cases::all_to_all::entries);
}
