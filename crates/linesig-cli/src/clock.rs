//! Wall and process-CPU time of a piece of work. On a shared machine the CPU time says
//! what the work cost even when other tenants slow the wall clock.

use std::time::{Duration, Instant};

/// User + system CPU time of the whole process so far, where the OS reports it.
pub fn process_cpu_time() -> Option<Duration> {
    #[cfg(unix)]
    {
        let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: getrusage writes a full `rusage` into the pointer on success.
        let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) };
        if rc != 0 {
            return None;
        }
        // SAFETY: rc == 0, so the struct was written.
        let usage = unsafe { usage.assume_init() };
        let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
        Some(tv(usage.ru_utime) + tv(usage.ru_stime))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// How long `work` took, on the wall and on the process's CPUs.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    pub wall: Duration,
    pub cpu: Option<Duration>,
}

pub fn time<T>(work: impl FnOnce() -> T) -> (T, Timing) {
    let cpu0 = process_cpu_time();
    let t0 = Instant::now();
    let out = work();
    let wall = t0.elapsed();
    let cpu = match (cpu0, process_cpu_time()) {
        (Some(a), Some(b)) => Some(b.saturating_sub(a)),
        _ => None,
    };
    (out, Timing { wall, cpu })
}

/// The run with the median wall time (lower median for an even count).
pub fn median(mut runs: Vec<Timing>) -> Timing {
    runs.sort_by_key(|t| t.wall);
    runs[(runs.len() - 1) / 2]
}
