//! Progress on stderr for long runs (only when stderr is a terminal) and
//! per-phase timing for `--stats`.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

pub struct Phases {
    bar: Option<ProgressBar>,
    started: Instant,
    current: Option<(&'static str, Instant)>,
    pub timings: Vec<(&'static str, Duration)>,
}

impl Phases {
    pub fn new(show: bool) -> Phases {
        let bar = (show && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::new_spinner();
            if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} [{elapsed}]") {
                bar.set_style(style);
            }
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        Phases {
            bar,
            started: Instant::now(),
            current: None,
            timings: Vec::new(),
        }
    }

    /// End the current phase (if any) and start `name`.
    pub fn start(&mut self, name: &'static str) {
        self.finish_current();
        if let Some(bar) = &self.bar {
            bar.set_message(name);
        }
        self.current = Some((name, Instant::now()));
    }

    fn finish_current(&mut self) {
        if let Some((name, t)) = self.current.take() {
            self.timings.push((name, t.elapsed()));
        }
    }

    pub fn finish(&mut self) -> Duration {
        self.finish_current();
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        self.started.elapsed()
    }
}
