//! `linesig verify`'s JSON Lines reader on arbitrary input: the reader the command runs
//! (`linesig_cli::cmd::verify::stream`: chunking, a byte-order mark, CRLF, every field's
//! checks, the verdict lines), on an engine of one of the schemes the first byte picks.
//! It must never panic, and it must write exactly one verdict line per input line, in
//! order, each accounted for once in the tally.
#![no_main]

use libfuzzer_sys::fuzz_target;
use linesig::{Engine, Scheme};
use linesig_cli::cmd::verify::stream;
use linesig_cli::progress::Progress;
use std::sync::OnceLock;

fn engines() -> &'static [Engine] {
    static ENGINES: OnceLock<Vec<Engine>> = OnceLock::new();
    ENGINES.get_or_init(|| {
        ["ed25519", "mldsa44", "leansig-devnet4", "leanxmss"]
            .iter()
            .map(|name| {
                let scheme: Scheme = name.parse().expect("a scheme linesig names");
                Engine::builder().scheme(scheme).workers(1).build().expect("an engine")
            })
            .chain([false, true].map(|batch_equation| {
                let scheme = Scheme::Ed25519(linesig::Policy::Zip215);
                Engine::builder()
                    .scheme(scheme)
                    .workers(1)
                    .batch_size(4)
                    .batch_equation(batch_equation)
                    .build()
                    .expect("an engine")
            }))
            .collect()
    })
}

fuzz_target!(|input: &[u8]| {
    let Some((&control, text)) = input.split_first() else {
        return;
    };
    let engines = engines();
    let engine = &engines[usize::from(control & 7) % engines.len()];
    let chunk = 1 + usize::from(control >> 3);
    let mut out = Vec::new();
    let progress = Progress::new("verified", None, false);
    let tally = stream(engine, Box::new(text), &mut out, chunk, &progress).expect("memory I/O");
    let lines = text.split(|&b| b == b'\n').count() - usize::from(text.ends_with(b"\n"));
    let lines = if text.is_empty() { 0 } else { lines };
    assert_eq!(tally.lines, lines);
    assert_eq!(tally.valid + tally.invalid + tally.malformed, tally.lines);
    let verdicts: Vec<&[u8]> = out.split(|&b| b == b'\n').filter(|l| !l.is_empty()).collect();
    assert_eq!(verdicts.len(), lines);
    for (i, line) in verdicts.iter().enumerate() {
        let v: serde_json::Value = serde_json::from_slice(line).expect("a verdict is JSON");
        assert_eq!(v["index"], i, "verdicts in input order");
        assert!(v["valid"].is_boolean());
    }
});
