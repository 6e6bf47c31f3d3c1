//! `no-openat2 [--errno enosys|eperm] [--and-shared-anonymous-mmap] -- COMMAND [ARGS...]`
//!
//! Installs a seccomp filter that makes `openat2(2)` fail with the chosen
//! errno (default `ENOSYS`, what an old kernel answers; `EPERM` is what a
//! container runtime's filter usually answers), then replaces itself with
//! COMMAND. The filter is inherited by every child, so a test binary run
//! under it exercises agentspine-fs's component-by-component fallback walker
//! for real, not through a flag.
//!
//! CI runs the agentspine-fs suite once normally and once under each errno.
//!
//! `--and-shared-anonymous-mmap` also fails every `mmap(2)` of shared
//! anonymous memory (`MAP_SHARED | MAP_ANONYMOUS`) with the same errno: what
//! a hook maps to share its deadline's gate with its work process, so that
//! the hook's path without that page is exercised for real as well.

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitCode};

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
    TargetArch,
};

/// `openat2` has the same number on every Linux architecture (it was added
/// after the syscall tables were unified).
const SYS_OPENAT2: i64 = 437;
const ENOSYS: u32 = 38;
const EPERM: u32 = 1;
/// `mmap`'s number, which differs between architectures.
#[cfg(target_arch = "x86_64")]
const SYS_MMAP: i64 = 9;
#[cfg(target_arch = "aarch64")]
const SYS_MMAP: i64 = 222;
/// `MAP_SHARED | MAP_ANONYMOUS` (the same on both).
const SHARED_ANONYMOUS: u64 = 0x01 | 0x20;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1).peekable();
    let mut errno = ENOSYS;
    let mut shared_mmap = false;
    while let Some(arg) = args.peek() {
        match arg.as_str() {
            "--errno" => {
                args.next();
                errno = match args.next().as_deref() {
                    Some("enosys") => ENOSYS,
                    Some("eperm") => EPERM,
                    other => return usage(&format!("unknown errno {other:?}")),
                };
            }
            "--" => {
                args.next();
                break;
            }
            "--and-shared-anonymous-mmap" => {
                args.next();
                shared_mmap = true;
            }
            "-h" | "--help" => return usage(""),
            _ => break,
        }
    }
    let Some(program) = args.next() else {
        return usage("no command given");
    };
    if let Err(message) = install_filter(errno, shared_mmap) {
        eprintln!("no-openat2: cannot install the seccomp filter: {message}");
        return ExitCode::from(2);
    }
    let error = Command::new(&program).args(args).exec();
    eprintln!("no-openat2: cannot run {program}: {error}");
    ExitCode::from(127)
}

fn install_filter(errno: u32, shared_mmap: bool) -> Result<(), String> {
    let arch: TargetArch =
        std::env::consts::ARCH.try_into().map_err(|e| format!("unsupported architecture: {e:?}"))?;
    let mut rules = BTreeMap::from([(SYS_OPENAT2, vec![])]);
    if shared_mmap {
        // The flags are mmap's fourth argument.
        let both = SeccompCondition::new(
            3,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::MaskedEq(SHARED_ANONYMOUS),
            SHARED_ANONYMOUS,
        )
        .map_err(|e| e.to_string())?;
        rules.insert(SYS_MMAP, vec![SeccompRule::new(vec![both]).map_err(|e| e.to_string())?]);
    }
    let filter = SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Errno(errno), arch)
        .map_err(|e| e.to_string())?;
    let program: BpfProgram = filter.try_into().map_err(|e: seccompiler::BackendError| e.to_string())?;
    seccompiler::apply_filter(&program).map_err(|e| e.to_string())
}

fn usage(problem: &str) -> ExitCode {
    if !problem.is_empty() {
        eprintln!("no-openat2: {problem}");
    }
    eprintln!("usage: no-openat2 [--errno enosys|eperm] [--and-shared-anonymous-mmap] -- COMMAND [ARGS...]");
    eprintln!("Runs COMMAND with openat2(2) failing, to test agentspine-fs's fallback walker;");
    eprintln!("with --and-shared-anonymous-mmap, mmap(2) of shared anonymous memory fails as well.");
    if problem.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(2) }
}
