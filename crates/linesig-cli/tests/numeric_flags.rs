//! Every numeric flag, parsed as `linesig` parses it (`linesig_cli::Cli`, the parser the
//! binary runs), over arbitrary text and over integers from far below 0 to far past
//! `u64::MAX`: parsing never panics, and a flag whose range is checked at parse time
//! accepts exactly that range (its refusals name it: exit 2 before any work starts).

use clap::{CommandFactory, Parser};
use linesig_cli::Cli;
use proptest::prelude::*;

/// A flag with its parse-time range: the arguments before it (a subcommand and whatever
/// else it requires), the flag, and the inclusive bounds it accepts.
struct Ranged {
    before: &'static [&'static str],
    flag: &'static str,
    low: i128,
    high: i128,
}

fn ranged() -> Vec<Ranged> {
    let usize_max = usize::MAX as i128;
    let workers = linesig::MAX_WORKERS as i128;
    let r = |before, flag, low, high| Ranged {
        before,
        flag,
        low,
        high,
    };
    vec![
        r(&["verify"], "--workers", 0, workers),
        r(&["verify"], "--batch", 1, usize_max),
        r(&["verify"], "--key-cache-mb", 0, usize_max),
        r(&["verify"], "--chunk", 1, usize_max),
        r(&["bench"], "--workers", 0, workers),
        r(&["bench"], "--batch", 1, usize_max),
        r(&["bench"], "--key-cache-mb", 0, usize_max),
        r(&["replay", "p.lspkt"], "--workers", 0, workers),
        r(&["replay", "p.lspkt"], "--batch", 1, usize_max),
        r(&["replay", "p.lspkt"], "--key-cache-mb", 0, usize_max),
        r(&["replay", "p.lspkt"], "--dedup-mb", 1, usize_max),
        r(
            &["keygen", "--out", "k.key"],
            "--active-epochs",
            1,
            u64::MAX as i128,
        ),
        r(&["sign", "--key", "k.key"], "--count", 1, usize_max),
    ]
}

fn parses(before: &[&str], flag: &str, value: &str) -> bool {
    let mut argv = vec!["linesig"];
    argv.extend_from_slice(before);
    argv.extend_from_slice(&[flag, value]);
    Cli::try_parse_from(argv).is_ok()
}

/// Integers around every bound that matters: 0, 1, the worker limit, 2^32, the ends of
/// `u64`, and far past both ends.
fn integers() -> impl Strategy<Value = i128> {
    let edges = [
        0i128,
        1,
        linesig::MAX_WORKERS as i128,
        1 << 32,
        u64::MAX as i128,
    ];
    prop_oneof![
        (-3i128..=3, proptest::sample::select(edges.to_vec())).prop_map(|(d, e)| e + d),
        any::<i64>().prop_map(i128::from),
        any::<u64>().prop_map(i128::from),
        any::<i128>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_ranged_flag_accepts_exactly_its_range(value in integers()) {
        for f in ranged() {
            let want = (f.low..=f.high).contains(&value);
            prop_assert_eq!(
                parses(f.before, f.flag, &value.to_string()),
                want,
                "linesig {} {} {}", f.before.join(" "), f.flag, value
            );
        }
    }

    /// Any text: accepted exactly when Rust reads it as an unsigned integer in the range
    /// (a leading `+` included, as `usize::from_str` takes it; no `-`, not even `-0`, no
    /// spaces, fractions, exponents or separators).
    #[test]
    fn a_ranged_flag_refuses_what_is_not_a_whole_number_in_range(
        text in prop_oneof![
            "[+-]?[0-9]{0,4}([.eE_x, ][0-9]{0,3})?",
            "\\PC{0,12}",
        ]
    ) {
        for f in ranged() {
            let want = text
                .parse::<u128>()
                .is_ok_and(|v| (f.low..=f.high).contains(&(v.min(i128::MAX as u128) as i128)));
            prop_assert_eq!(
                parses(f.before, f.flag, &text),
                want,
                "linesig {} {} {:?}", f.before.join(" "), f.flag, text
            );
        }
    }

}

proptest! {
    // Each case parses every flag of every subcommand twice.
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Every flag of every subcommand that takes a value, given arbitrary text: an
    /// answer (accepted, or refused with a message), never a panic.
    #[test]
    fn no_flag_panics_on_any_text(text in "\\PC{0,24}", number in integers()) {
        let cli = Cli::command();
        for sub in cli.get_subcommands() {
            for arg in sub.get_arguments() {
                let Some(long) = arg.get_long() else { continue };
                if !arg.get_action().takes_values() {
                    continue;
                }
                let flag = format!("--{long}");
                for value in [text.clone(), number.to_string()] {
                    let argv = ["linesig", sub.get_name(), flag.as_str(), value.as_str()];
                    if let Err(e) = Cli::try_parse_from(argv) {
                        prop_assert!(!e.to_string().is_empty());
                    }
                }
            }
        }
    }
}

/// The table above names flags that exist: a renamed flag fails here, not silently in
/// the properties (which would then test a refusal for "unexpected argument").
#[test]
fn every_ranged_flag_takes_its_lowest_value() {
    for f in ranged() {
        assert!(
            parses(f.before, f.flag, &f.low.to_string()),
            "linesig {} {} {}",
            f.before.join(" "),
            f.flag,
            f.low
        );
    }
}
