//! The fault tests' scriptable engine (see `karsinta_test_support::fake_engine`).

fn main() -> std::process::ExitCode {
    karsinta_test_support::fake_engine::main()
}
