//! The second process of the cross-process benches (see `vmmkit_benches::peer`);
//! started by a bench process, never by hand.

fn main() -> std::process::ExitCode {
    vmmkit_benches::peer::serve::main()
}
