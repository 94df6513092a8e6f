//! Every kernel in the workspace is compiled through `isa_path!`, so its enabled
//! features and its guard come from one literal: no `#[target_feature]` is written by
//! hand anywhere else, and no code asks the CPU for a feature outside `cpu.rs`.

use std::path::{Path, PathBuf};

const CRATES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// Every `.rs` file under `dir`, build outputs left out.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy();
        if path.is_dir() && name != "target" {
            rust_files(&path, out);
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

/// `(file, line)` of each line holding `needle` outside the one file allowed to.
fn sites(needle: &str, allowed: &str) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(Path::new(CRATES), &mut files);
    rust_files(
        &Path::new(CRATES).join("../bindings/python/src"),
        &mut files,
    );
    assert!(files.len() > 100, "the scan found {} files", files.len());
    let mut found = Vec::new();
    for file in files {
        if file.ends_with(allowed) || file.ends_with("tests/one_literal.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if code.contains(needle) {
                found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    found
}

#[test]
fn target_features_come_only_from_isa_path() {
    let hand_written = sites("#[target_feature", "linesig-simd/src/path.rs");
    assert!(
        hand_written.is_empty(),
        "kernels compiled outside `isa_path!` (their guard could drift from them): {hand_written:#?}"
    );
}

#[test]
fn the_cpu_is_asked_only_in_cpu_rs() {
    let asked = sites("is_x86_feature_detected!", "linesig-simd/src/cpu.rs");
    assert!(
        asked.is_empty(),
        "feature detection outside cpu.rs: {asked:#?}"
    );
}

/// The scan sees the kernels that exist: the macro's own `#[target_feature]` and paths
/// declared in the schemes and in Paillier.
#[test]
fn the_scan_sees_the_paths() {
    let paths = sites("isa_path!(\"", "linesig-simd/src/path.rs");
    for expected in [
        "ed25519",
        "mldsa",
        "leansig",
        "leanxmss",
        "linesig-paillier",
    ] {
        assert!(
            paths.iter().any(|site| site.contains(expected)),
            "no isa_path! found under {expected}: {paths:#?}"
        );
    }
}
