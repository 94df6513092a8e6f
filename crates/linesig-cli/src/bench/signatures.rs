//! The Ed25519 and ML-DSA benchmark: the seeded workload, the engines (one per
//! configuration, the cache on and off), the yardsticks in the same rounds, and the
//! per-operation rows.
use super::op_rows::{time_row, OperationRow};
use super::report::{
    cache_report, print_report, print_sweep, report, BatchEquationReport, RunReport, YardstickRun,
};
use super::run::{json_line, Bench, BenchReport, Notes};
use super::{BenchArgs, YardstickChoice, DEFAULT_OP_ITERATIONS};
use crate::args::{parse_backend, CliError};
use crate::clock::{median, time, Timing};
use crate::progress::Progress;
use crate::schemes::{yardsticks, Verifier, Yardstick};
use crate::workload::{seed32, Signer, Workload, WorkloadSpec};
use linesig::{Engine, Item, KeyCacheStats, Scheme, Verdict};

/// An engine, its timing per round and the most mismatches of any round.
type EngineRuns = (Engine, Vec<Timing>, usize);

/// The Ed25519 / ML-DSA benchmark's state: the workload and engines from `setup`, every
/// round's timings from `measure`.
pub(crate) struct SignatureBench<'a, S> {
    pub(crate) args: &'a BenchArgs,
    pub(crate) scheme: Scheme,
    pub(crate) signer: &'a S,
    pub(crate) workload: Option<Workload>,
    /// One engine per configuration (several with `--sweep`).
    pub(crate) runs: Vec<EngineRuns>,
    /// With the cache on: the same engine without it, timed in the same rounds.
    pub(crate) cache_off: Option<EngineRuns>,
    /// Each engine's cache counters after the untimed warm-up pass.
    pub(crate) warm: Vec<Option<KeyCacheStats>>,
    /// Each yardstick, its timing per round and whether every round answered as expected.
    pub(crate) yardsticks: Vec<(Yardstick, Vec<Timing>, bool)>,
}

impl<S: Signer> SignatureBench<'_, S> {
    fn workload(&self) -> &Workload {
        self.workload.as_ref().expect("measured after setup")
    }

    /// (workers, batch) of each engine: one, or the sweep's grid.
    fn configurations(&self) -> Vec<(usize, usize)> {
        let cores = linesig::available_cores();
        if !self.args.sweep {
            return vec![(self.args.workers.unwrap_or(cores), self.args.batch)];
        }
        let mut workers: Vec<usize> = std::iter::successors(Some(1usize), |w| Some(w * 2))
            .take_while(|&w| w < cores)
            .collect();
        workers.push(cores);
        let batches = [64, 128, 256, 512, 1024, 2048];
        workers
            .iter()
            .flat_map(|&w| batches.map(|b| (w, b)))
            .collect()
    }

    /// The engines: one per configuration, with the cache where asked, and (cache on, no
    /// sweep) the same engine without it.
    fn build_engines(&mut self) -> Result<(), CliError> {
        let (args, backend) = (self.args, parse_backend(&self.args.backend)?);
        for (workers, batch) in self.configurations() {
            let mut builder = Engine::builder()
                .scheme(self.scheme)
                .workers(workers)
                .batch_size(batch)
                .batch_equation(args.batch_equation.on());
            if let Some(b) = backend {
                builder = builder.backend(b);
            }
            if let Some(n) = args.lanes {
                builder = builder.lanes(n);
            }
            let cached = builder
                .clone()
                .key_cache(args.key_cache_mb.saturating_mul(1 << 20));
            let engine = cached.build().map_err(|e| CliError::usage(e.to_string()))?;
            self.runs.push((engine, Vec::new(), 0));
            if args.key_cache_mb > 0 && !args.sweep {
                let off = builder
                    .build()
                    .map_err(|e| CliError::usage(e.to_string()))?;
                self.cache_off = Some((off, Vec::new(), 0));
            }
        }
        Ok(())
    }
}

impl<S: Signer> Bench for SignatureBench<'_, S> {
    type Report = SignatureReports;

    fn setup(&mut self, notes: &Notes) -> Result<(), CliError> {
        let args = self.args;
        let spec = WorkloadSpec {
            count: args.count(),
            keys: args.keys(),
            msg_size: args.msg_size,
            invalid_fraction: args.invalid,
            seed: args.seed,
        };
        crate::workload::check_workload_fits(
            spec.count,
            spec.msg_size + self.signer.signature_len(),
        )
        .map_err(CliError::usage)?;
        self.build_engines()?;
        let workload = Workload::generate(self.signer, &spec, notes.show());
        let items = workload.items();
        // The cache's steady state: one untimed pass fills it; the report counts from here.
        self.warm = self
            .runs
            .iter()
            .map(|(engine, _, _)| {
                engine.key_cache_stats()?;
                let progress = Progress::new("warm-up", Some(items.len() as u64), notes.show());
                engine.verify_with_progress(items.as_slice(), &|n| progress.inc(n as u64));
                progress.finish();
                engine.key_cache_stats()
            })
            .collect();
        drop(items);
        self.workload = Some(workload);
        self.yardsticks = match args.yardstick {
            YardstickChoice::Auto => yardsticks(self.scheme),
            YardstickChoice::None => Vec::new(),
        }
        .into_iter()
        .map(|y| (y, Vec::new(), true))
        .collect();
        Ok(())
    }

    /// Rounds interleave linesig and the yardsticks, so a machine whose speed drifts
    /// (shared hosts, turbo) shifts both sides of every ratio alike.
    fn measure(&mut self, notes: &Notes) -> Result<(), CliError> {
        let workload = self.workload.as_ref().expect("measured after setup");
        let items = workload.items();
        let repeat = self.args.repeat;
        for round in 0..repeat {
            let label = format!("{}/{repeat}", round + 1);
            for (engine, timings, mismatches) in self.runs.iter_mut().chain(self.cache_off.as_mut())
            {
                let progress = Progress::new(
                    &format!("verify {label}"),
                    Some(items.len() as u64),
                    notes.show(),
                );
                let (verdicts, timing) = time(|| {
                    engine.verify_with_progress(items.as_slice(), &|n| progress.inc(n as u64))
                });
                progress.finish();
                *mismatches =
                    (*mismatches).max(count_mismatches(&verdicts, &workload.expect_valid));
                timings.push(timing);
            }
            for (y, timings, agrees) in &mut self.yardsticks {
                let (timing, ok) =
                    yardstick_round(y, &items, &workload.expect_valid, &label, notes.show());
                timings.push(timing);
                *agrees &= ok;
            }
        }
        Ok(())
    }

    fn operations(&mut self, _: &Notes) -> Vec<OperationRow> {
        let args = self.args;
        operation_rows(
            self.scheme,
            self.signer,
            &self.workload().items(),
            args.op_iterations.unwrap_or(DEFAULT_OP_ITERATIONS),
            args.seed,
        )
    }

    fn report(self, operations: Vec<OperationRow>) -> Result<SignatureReports, CliError> {
        let (args, scheme, workload) = (self.args, self.scheme, self.workload());
        let cores = linesig::available_cores();
        let measured: Vec<(&Yardstick, YardstickRun)> = self
            .yardsticks
            .iter()
            .map(|(y, timings, agrees)| {
                let timing = median(timings.clone());
                (
                    y,
                    YardstickRun {
                        timing,
                        agrees: *agrees,
                    },
                )
            })
            .collect();
        let mut reports: Vec<RunReport> = self
            .runs
            .iter()
            .map(|(engine, timings, mismatches)| {
                report(
                    args,
                    scheme,
                    cores,
                    workload,
                    engine,
                    timings,
                    *mismatches,
                    &measured,
                )
            })
            .collect();
        let best = (0..reports.len())
            .max_by(|&a, &b| {
                reports[a]
                    .head
                    .throughput_per_s
                    .total_cmp(&reports[b].head.throughput_per_s)
            })
            .unwrap_or(0);
        if args.sweep {
            reports[best].best = true;
        }
        reports[best].operations = operations;
        let off_mismatches = self.cache_off.as_ref().map_or(0, |(_, _, m)| *m);
        let off_throughput = self
            .cache_off
            .as_ref()
            .map(|(_, t, _)| workload.len() as f64 / median(t.clone()).wall.as_secs_f64());
        for ((r, (engine, _, _)), warm) in reports.iter_mut().zip(&self.runs).zip(&self.warm) {
            r.batch_equation = batch_equation_report(engine);
            r.key_cache = engine.key_cache_stats().map(|s| {
                cache_report(
                    s,
                    warm.unwrap_or_default(),
                    off_throughput,
                    r.head.throughput_per_s,
                )
            });
            r.mismatches = r.mismatches.max(off_mismatches);
            if r.mismatches > 0 {
                r.head.status = "FAILURE";
            }
        }
        Ok(SignatureReports {
            scheme,
            sweep: args.sweep,
            best,
            reports,
        })
    }
}

/// The batch equation's units for a cofactored Ed25519 engine (on or off), else `None`.
fn batch_equation_report(engine: &Engine) -> Option<BatchEquationReport> {
    let Scheme::Ed25519(policy) = engine.scheme() else {
        return None;
    };
    if policy == linesig::Policy::Strict {
        return None;
    }
    let s = engine.batch_equation_stats().unwrap_or_default();
    Some(BatchEquationReport {
        on: engine.batch_equation(),
        units_held: s.held,
        units_found_few: s.found_few,
        units_fell_back: s.fell_back,
        units_skipped: s.skipped,
    })
}

/// One report per engine configuration (one unless `--sweep`), the fastest marked.
pub(crate) struct SignatureReports {
    scheme: Scheme,
    sweep: bool,
    best: usize,
    reports: Vec<RunReport>,
}

impl BenchReport for SignatureReports {
    fn succeeded(&self) -> bool {
        self.reports.iter().all(|r| r.mismatches == 0)
    }

    fn json_lines(&self) -> Vec<String> {
        self.reports.iter().map(json_line).collect()
    }

    fn print(&self, seconds: f64) {
        if self.sweep {
            print_sweep(&self.reports);
        }
        print_report(self.scheme, &self.reports[self.best], seconds);
    }
}

fn count_mismatches(verdicts: &[Verdict], expect_valid: &[bool]) -> usize {
    verdicts
        .iter()
        .zip(expect_valid)
        .filter(|(v, e)| v.is_valid() != **e)
        .count()
        + verdicts.len().abs_diff(expect_valid.len())
}

/// One timed pass of a yardstick over the items, and whether it answered as expected.
fn yardstick_round(
    y: &Yardstick,
    items: &[Item<'_>],
    expect_valid: &[bool],
    label: &str,
    show: bool,
) -> (Timing, bool) {
    let progress = Progress::new(
        &format!("yardstick {label}"),
        Some(items.len() as u64),
        show,
    );
    let (valid, timing) = time(|| match y.verify {
        Verifier::Each(verify) => items
            .iter()
            .map(|it| {
                progress.inc(1);
                verify(it)
            })
            .collect::<Vec<bool>>(),
        Verifier::Batch { size, verify } => items
            .chunks(size)
            .map(|chunk| {
                progress.inc(chunk.len() as u64);
                verify(chunk)
            })
            .collect::<Vec<bool>>(),
    });
    progress.finish();
    // A batch verifier answers per batch: it agrees when it accepts exactly the
    // batches whose items were all left honest.
    let expected: Vec<bool> = match y.verify {
        Verifier::Each(_) => expect_valid.to_vec(),
        Verifier::Batch { size, .. } => expect_valid
            .chunks(size)
            .map(|c| c.iter().all(|v| *v))
            .collect(),
    };
    (timing, valid == expected)
}

/// Keygen, sign and single verify, each timed call by call on this thread.
fn operation_rows<S: Signer>(
    scheme: Scheme,
    signer: &S,
    items: &[Item<'_>],
    iterations: usize,
    seed: u64,
) -> Vec<OperationRow> {
    if iterations == 0 {
        return Vec::new();
    }
    let (_, secret) = signer.keygen(seed32(seed, 5, 0));
    let message = vec![0x5au8; items.first().map_or(32, |i| i.message.len())];
    vec![
        time_row("keygen", iterations, |i| {
            drop(std::hint::black_box(signer.keygen(seed32(seed, 5, i))))
        }),
        time_row("sign", iterations, |i| {
            drop(std::hint::black_box(signer.sign(
                &secret,
                &message,
                seed32(seed, 6, i),
            )))
        }),
        time_row("verify", iterations, |i| {
            std::hint::black_box(scheme.verify(&items[i % items.len()]));
        }),
    ]
}
