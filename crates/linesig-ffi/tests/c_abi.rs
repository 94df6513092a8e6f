//! The C ABI as C sees it: the checked-in header equals what cbindgen makes of the code,
//! and the C example compiles against it, links the static library, and runs.

use std::path::PathBuf;
use std::process::Command;

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn header_matches_the_code() {
    let config = cbindgen::Config::from_file(crate_dir().join("cbindgen.toml")).unwrap();
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(crate_dir())
        .with_config(config)
        .generate()
        .expect("cbindgen")
        .write(&mut generated);
    let header = crate_dir().join("include/linesig.h");
    if std::env::var_os("LINESIG_BLESS").is_some() {
        std::fs::write(&header, &generated).unwrap();
    }
    let checked_in = std::fs::read(&header).unwrap_or_default();
    assert!(
        checked_in == generated,
        "include/linesig.h is out of date: run `LINESIG_BLESS=1 cargo test --release -p linesig-ffi --test c_abi` and commit it"
    );
}

/// The static library: `cargo test` leaves it in target/<profile>/deps/ beside this
/// test's executable; `cargo build` copies it up to target/<profile>/.
fn static_library() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    let candidates = [
        deps.join("liblinesig_ffi.a"),
        deps.parent().unwrap().join("liblinesig_ffi.a"),
    ];
    candidates
        .iter()
        .find(|p| p.exists())
        .cloned()
        .unwrap_or_else(|| panic!("liblinesig_ffi.a not found in {candidates:?}"))
}

fn compile_and_run(source: &str, name: &str) -> std::process::Output {
    let out_dir = std::env::temp_dir().join(format!("linesig-c-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&out_dir).unwrap();
    let exe = out_dir.join(name);
    let lib = static_library();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(&cc)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1"])
        .arg("-I")
        .arg(crate_dir().join("include"))
        .arg(crate_dir().join(source))
        .arg(&lib)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe)
        .status()
        .unwrap_or_else(|e| panic!("running {cc}: {e}"));
    assert!(status.success(), "compiling {source} failed");
    let out = Command::new(&exe).output().unwrap();
    std::fs::remove_dir_all(&out_dir).ok();
    out
}

/// [`compile_and_run`], requiring exit status 0; its standard output.
fn compile_and_run_ok(source: &str, name: &str) -> String {
    let out = compile_and_run(source, name);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn c_example_compiles_links_and_verifies() {
    let stdout = compile_and_run_ok("examples/verify.c", "verify");
    assert!(stdout.contains("item 0: valid"), "{stdout}");
    assert!(stdout.contains("item 1: equation_failed"), "{stdout}");
    assert!(stdout.contains("item 2: bad_length"), "{stdout}");
}

#[test]
fn c_error_paths_return_status_codes() {
    compile_and_run_ok("tests/errors.c", "errors");
}

#[test]
fn c_signing_error_paths_return_status_codes() {
    compile_and_run_ok("tests/sign_errors.c", "sign_errors");
}

/// The signing example: keys made, saved and reloaded, signatures verified by an
/// engine, an aggregate proved and checked, ML-DSA hedged and deterministic, Ed25519.
#[test]
fn c_leanxmss_keys_sign_and_verify() {
    let stdout = compile_and_run_ok("tests/leanxmss.c", "leanxmss");
    assert!(stdout.contains("each epoch once"), "{stdout}");
}

#[test]
fn c_signing_example_runs() {
    let stdout = compile_and_run_ok("examples/sign.c", "sign");
    for line in [
        "l18 key: active 0..1024, prepared 0..1024, next 0",
        "l18 sign epoch 7: valid",
        "l18 reloaded key, epoch 7 again: epoch already signed",
        "l18 reloaded key, epoch 8: valid",
        "verify: ok",
        "devnet4 aggregate against another epoch: aggregate proof rejected",
        "mldsa65 hedged: valid",
        "mldsa65 deterministic: valid, repeatable: yes",
        "ed25519: valid",
    ] {
        assert!(stdout.contains(line), "missing {line:?} in:\n{stdout}");
    }
}

/// The README's C example, compiled and run as written, on RFC 8032's TEST 1 (the
/// variables it names are defined around it).
#[test]
fn readme_c_example_compiles_and_verifies() {
    let readme = std::fs::read_to_string(crate_dir().join("../../README.md")).unwrap();
    let start = readme.find("```c\n").expect("the README has a C example") + 5;
    let block = &readme[start..start + readme[start..].find("```").unwrap()];
    let hex_bytes = |hex: &str| -> String {
        (0..hex.len())
            .step_by(2)
            .map(|i| format!("0x{}", &hex[i..i + 2]))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let source = format!(
        "#include <stddef.h>\n#include <stdint.h>\n#include \"linesig.h\"\n\
         int main(void) {{\n\
         static const uint8_t pk[32] = {{{}}};\n\
         static const uint8_t sig[64] = {{{}}};\n\
         const uint8_t *msg = NULL; size_t msg_len = 0;\n\
         {block}\
         return verdicts[0];\n}}\n",
        hex_bytes("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"),
        hex_bytes(
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
        ),
    );
    let dir = std::env::temp_dir().join(format!("linesig-readme-c-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("readme.c");
    std::fs::write(&path, source).unwrap();
    let out = compile_and_run(path.to_str().unwrap(), "readme");
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(
        out.status.code(),
        Some(0),
        "the README example's verdict (0 = valid): {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
