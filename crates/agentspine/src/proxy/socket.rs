//! The socket's place on disk: a private directory, the socket in it
//! (mode 0600), the control token beside it (0600), and a stale socket
//! from a server that died replaced safely.

use std::io::ErrorKind;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// The socket's file name in the default directory.
const DEFAULT_NAME: &str = "agentspine.sock";

/// Where the socket goes: `--socket PATH`, else
/// `$XDG_RUNTIME_DIR/agentspine/agentspine.sock`, else (no runtime
/// directory, e.g. macOS) `$TMPDIR` or `/tmp`, in `agentspine-<uid>/`.
pub fn path(given: Option<&Path>) -> anyhow::Result<PathBuf> {
    if let Some(path) = given {
        let current = std::env::current_dir().context("cannot read the current directory")?;
        return Ok(if path.is_absolute() { path.to_path_buf() } else { current.join(path) });
    }
    let absolute = |name: &str| std::env::var_os(name).map(PathBuf::from).filter(|p| p.is_absolute());
    if let Some(runtime) = absolute("XDG_RUNTIME_DIR") {
        return Ok(runtime.join("agentspine").join(DEFAULT_NAME));
    }
    let uid = rustix::process::geteuid().as_raw();
    let tmp = absolute("TMPDIR").unwrap_or_else(|| PathBuf::from("/tmp"));
    Ok(tmp.join(format!("agentspine-{uid}")).join(DEFAULT_NAME))
}

/// The socket's directory and file name.
pub fn split(socket: &Path) -> anyhow::Result<(PathBuf, String)> {
    let (Some(dir), Some(name)) = (socket.parent(), socket.file_name().and_then(|n| n.to_str())) else {
        bail!("{}: not a socket path (it needs a directory and a UTF-8 file name)", socket.display());
    };
    // sun_path holds 108 bytes on Linux (104 on macOS), NUL included.
    if socket.as_os_str().len() > 100 {
        bail!(
            "{}: a socket path may be at most 100 bytes ({} given); choose a shorter --socket",
            socket.display(),
            socket.as_os_str().len()
        );
    }
    Ok((dir.to_path_buf(), name.to_owned()))
}

/// The control token's file beside the socket: `<socket name>.token`.
pub fn token_name(socket_name: &str) -> String {
    format!("{socket_name}.token")
}

/// Makes sure the directory is private, then clears the way for a new
/// socket: a live server there is an error; a stale socket (nobody
/// listening) is removed; anything that is not a socket is left alone and
/// refused.
///
/// The default directory is agentspine's own: it is created 0700, or
/// narrowed to 0700. A directory named with `--socket` is created 0700 if
/// missing, but an existing one is only checked: one that others may enter
/// (or another user's) is refused, never changed behind the user's back.
pub fn prepare(dir: &Path, name: &str, chosen: bool) -> anyhow::Result<()> {
    let create = || {
        agentspine_fs::ensure_private_dir(dir)
            .with_context(|| format!("{}: cannot make the socket's directory private (0700)", dir.display()))
    };
    if !chosen {
        create()?;
    } else {
        match agentspine_fs::check_private_dir(dir) {
            Ok(()) => {}
            Err(e) if e.code() == agentspine_fs::Code::NotFound => {
                create()?;
            }
            Err(e) => return Err(e).context("the socket's directory must be private to you"),
        }
    }
    let socket = dir.join(name);
    match UnixStream::connect(&socket) {
        Ok(_) => bail!(
            "{}: another agentspine serve is listening there; stop it first (SIGTERM) or choose another --socket",
            socket.display()
        ),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => {
            let removed = agentspine_fs::remove_socket(dir, name).with_context(|| {
                format!(
                    "{}: something other than a stale socket is there ({e}); it was left alone",
                    socket.display()
                )
            })?;
            if removed {
                tracing::info!("serve: replaced a stale socket at {} ({e})", socket.display());
            }
            Ok(())
        }
    }
}
