//! The second process of the cross-process benches (see `vmmkit_benches::peer`);
//! started by a bench process, never by hand.

fn main() -> std::process::ExitCode {
    if let Some(code) = vmmkit_benches::cases::ipc_event::serve_peer() {
        return code;
    }
    vmmkit_benches::peer::serve::main()
}
