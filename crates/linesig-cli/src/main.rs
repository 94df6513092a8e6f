//! The `linesig` command: `bench` (the founding benchmark), `verify` (JSON Lines), the
//! packet pipeline's `gen`, `replay` and `serve`, and leanSig's `aggregate` and
//! `verify-aggregate`.

use clap::Parser;
use linesig_cli::Cli;
use std::process::ExitCode;

fn main() -> ExitCode {
    // Die quietly on a closed pipe (`linesig replay f | head`), as Unix tools do, instead
    // of panicking in println!. Rust sets SIGPIPE to ignored before main.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of a signal at startup, before any thread.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let result = linesig_cli::run(Cli::parse().command);
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("linesig: {}", e.message);
            ExitCode::from(e.code)
        }
    }
}
