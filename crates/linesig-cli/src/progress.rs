//! Progress bars on stderr that appear only once a task has run for a second, so quick
//! runs stay quiet; never drawn in `--json` mode or when stderr is not a terminal.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const SHOW_AFTER: Duration = Duration::from_secs(1);
const BAR: &str = "{prefix:>12} [{bar:32}] {pos}/{len} ({per_sec}, eta {eta})";
const COUNTER: &str = "{prefix:>12} {spinner} {pos} ({per_sec}, {elapsed})";

pub struct Progress {
    bar: ProgressBar,
    enabled: bool,
    shown: AtomicBool,
    started: Instant,
}

impl Progress {
    /// A bar over `total` units (`None`: a counter with no end), labelled `label`.
    pub fn new(label: &str, total: Option<u64>, enabled: bool) -> Self {
        let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::hidden());
        let template = if total.is_some() { BAR } else { COUNTER };
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_prefix(label.to_string());
        Progress {
            bar,
            enabled,
            shown: AtomicBool::new(false),
            started: Instant::now(),
        }
    }

    /// Count `n` more units done. Cheap and callable from any thread.
    pub fn inc(&self, n: u64) {
        self.bar.inc(n);
        if self.enabled
            && !self.shown.load(Ordering::Relaxed)
            && self.started.elapsed() >= SHOW_AFTER
            && !self.shown.swap(true, Ordering::Relaxed)
        {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }

    /// `done` of `total` units, for a task that reports totals rather than increments
    /// and learns its size as it goes (key generation).
    pub fn report(&self, done: u64, total: u64) {
        if self.bar.length() != Some(total) {
            self.bar.set_length(total);
            if let Ok(style) = ProgressStyle::with_template(BAR) {
                self.bar.set_style(style.progress_chars("=> "));
            }
        }
        self.inc(done.saturating_sub(self.bar.position()));
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
