//! What every command shares: the error that ends a command with its exit code, and the
//! parsers of the flags several commands take.

use linesig::Backend;

/// A failure that ends the command, with its exit code.
#[derive(Debug)]
pub struct CliError {
    pub message: String,
    pub code: u8,
}

impl CliError {
    pub fn usage(message: impl Into<String>) -> Self {
        CliError {
            message: message.into(),
            code: 2,
        }
    }
    pub fn io(message: impl Into<String>) -> Self {
        CliError {
            message: message.into(),
            code: 3,
        }
    }
}

/// `auto` (or empty) means the engine's choice; anything else must name a backend.
pub fn parse_backend(name: &str) -> Result<Option<Backend>, CliError> {
    if name.is_empty() || name.eq_ignore_ascii_case("auto") {
        return Ok(None);
    }
    name.parse()
        .map(Some)
        .map_err(|e: linesig::UnknownBackend| CliError::usage(e.to_string()))
}

/// `--workers`: 0 (all cores) or a thread count from 1 to [`linesig::MAX_WORKERS`], refused at parse time
/// so that every command (the leanSig benches start their own pools) says the same thing.
pub fn parse_workers(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        // 0 is all cores, as in every face (C, Go, C++, Nim, Python).
        Ok(0) => Ok(linesig::available_cores()),
        Ok(n) if (1..=linesig::MAX_WORKERS).contains(&n) => Ok(n),
        _ => Err(format!(
            "expected 0 (all cores) or a worker count from 1 to {}",
            linesig::MAX_WORKERS
        )),
    }
}

/// A UDP address as HOST:PORT, the host a name (resolved, first address) or a numeric
/// address (`127.0.0.1:8001`, `[::1]:8001`, `localhost:8001`).
pub fn parse_socket_addr(text: &str) -> Result<std::net::SocketAddr, String> {
    use std::net::ToSocketAddrs;
    let mut addrs = text.to_socket_addrs().map_err(|e| {
        format!("expected HOST:PORT (a numeric address or a host name that resolves): {e}")
    })?;
    addrs
        .next()
        .ok_or_else(|| format!("'{text}' resolves to no address"))
}

/// `--batch-equation on|off`: whether the cofactored Ed25519 policies check each work
/// unit with one randomized batch equation before any signature alone
/// ([`linesig::EngineBuilder::batch_equation`]). Verdicts are the same either way; off,
/// each is a deterministic function of its item.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Switch {
    #[default]
    On,
    Off,
}

impl Switch {
    pub fn on(self) -> bool {
        self == Switch::On
    }
}

/// `--key-cache-mb`: MiB for the hot-key cache, 0 (off) or more.
pub fn parse_mib(text: &str) -> Result<usize, String> {
    text.parse::<usize>()
        .map_err(|_| "expected a whole number of MiB, 0 (off) or more".into())
}

/// A count that 0 would make meaningless (`--chunk`, `--dedup-mb`): refused at parse time
/// with the range, rather than quietly taken as 1.
pub fn parse_at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err("expected a whole number, at least 1".into()),
    }
}

/// As [`parse_at_least_one`], for counts that may pass `usize` (leanSig epochs).
pub fn parse_at_least_one_u64(text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err("expected a whole number, at least 1".into()),
    }
}

/// A time limit in seconds: finite and above 0 (`--duration 0` would stop at once).
pub fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 => Ok(s),
        _ => Err("expected a number of seconds above 0".into()),
    }
}
