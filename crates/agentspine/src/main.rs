//! `agentspine`: the command-line front end. It parses arguments, calls the
//! library crates, and prints; it holds no resolution logic of its own.

#![forbid(unsafe_code)]

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
