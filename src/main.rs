//! The `tilewalk` binary: plays the game, or runs a headless command (`path`, `simulate`,
//! `tactics`, `gen`).

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    tilewalk::cli::run(tilewalk::cli::Cli::parse())
}
