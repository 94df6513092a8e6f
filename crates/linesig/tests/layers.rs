//! Each crate's top-level modules form the layers its `lib.rs` states: each module's
//! non-test source names (through `crate::…` / `$crate::…` paths, root re-exports
//! resolved to their module) only modules of layers above its own in that list, so there
//! is no import cycle. A new import against the order fails here with the edge it adds.
//! Checked for linesig, and from here for its siblings linesig-aggregate (the prover) and
//! linesig-pipeline (the stages), whose sources sit beside it in the repository.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
const AGGREGATE_SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../linesig-aggregate/src");
const PIPELINE_SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../linesig-pipeline/src");

/// `text` without its test-only items: each item under `#[cfg(test)]` or
/// `#[cfg(all(test, …))]`, up to its `;` or its matching closing brace. Code after a test
/// module (linesig-aggregate's `lib.rs` declares its tests above its imports) is kept.
fn non_test(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let next = ["#[cfg(test)]", "#[cfg(all(test"]
            .iter()
            .filter_map(|marker| rest.find(marker))
            .min();
        let Some(at) = next else {
            out.push_str(rest);
            return out;
        };
        out.push_str(&rest[..at]);
        rest = &rest[item_end(&rest[at..]) + at..];
    }
}

/// The length of the item that starts with the attribute at the start of `text`: up to
/// a `;` that comes before any brace, or to the brace that closes the first one. Braces
/// inside character literals (`'{'`) are skipped; those in strings come in pairs.
fn item_end(text: &str) -> usize {
    let body = text.find(']').map_or(0, |close| close + 1);
    let mut depth = 0usize;
    let bytes = text.as_bytes();
    let mut i = body;
    while i < bytes.len() {
        match bytes[i] {
            b';' if depth == 0 => return i + 1,
            b'\'' if bytes.get(i + 2) == Some(&b'\'') => i += 2,
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    text.len()
}

/// The layers `lib.rs` states in its `// Layers, …` comment, top first: groups of
/// backticked module names separated by `→`.
fn stated_layers(lib: &str) -> Vec<BTreeSet<String>> {
    let comment: String = lib
        .lines()
        .skip_while(|line| !line.starts_with("// Layers"))
        .take_while(|line| line.starts_with("//"))
        .map(|line| line.trim_start_matches('/').trim().to_string() + " ")
        .collect();
    let statement = comment.split_once(':').map_or("", |(_, list)| list);
    statement
        .split('→')
        .map(|group| {
            group
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect()
        })
        .collect()
}

/// Every `.rs` file under `path` (or `path` itself).
fn files(path: &Path) -> Vec<std::path::PathBuf> {
    if path.is_file() {
        return vec![path.to_path_buf()];
    }
    let mut out = Vec::new();
    for entry in std::fs::read_dir(path).unwrap() {
        out.extend(files(&entry.unwrap().path()));
    }
    out
}

/// The identifiers that follow `crate::` in `text`, including each name of a
/// `crate::{a, b::c}` group's first segments.
fn crate_paths(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for part in group[..end].split(',') {
                let first = part.trim().split("::").next().unwrap_or("").trim();
                names.push(first.to_string());
            }
        } else {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            names.push(rest[..end].to_string());
        }
    }
    names
}

/// `pub use module::{A, B}` / `pub use module::A` lines of lib.rs: re-export → module.
fn root_reexports(lib: &str) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    for line in lib.lines().filter(|l| l.starts_with("pub use ")) {
        let path = line["pub use ".len()..].trim_end_matches(';');
        let Some((module, items)) = path.split_once("::") else {
            continue;
        };
        let items = items.trim_start_matches('{').trim_end_matches('}');
        for item in items.split(',') {
            map.insert(item.trim().to_string(), module.to_string());
        }
    }
    map
}

/// The modules `lib.rs` declares outside test items (`mod x;`, `pub mod x;`, …).
fn declared_modules(lib: &str) -> BTreeSet<String> {
    non_test(lib)
        .lines()
        .filter_map(|line| {
            let line = line.trim();
            let rest = line.strip_prefix("mod ").or_else(|| {
                line.strip_prefix("pub")
                    .and_then(|r| r.split_once("mod ").map(|(_, m)| m))
            })?;
            rest.strip_suffix(';').map(|m| m.trim().to_string())
        })
        .collect()
}

/// Each top-level module of the crate whose sources are in `src` → the top-level
/// modules its non-test source imports.
fn imports_in(src: &str) -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(src);
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let reexports = root_reexports(&lib);
    let names = declared_modules(&lib);
    let mut modules: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for name in &names {
        let dir = src.join(name);
        let path = if dir.is_dir() {
            dir
        } else {
            src.join(format!("{name}.rs"))
        };
        let deps = modules.entry(name.clone()).or_default();
        for file in files(&path) {
            let text = crate_relative(&file, src, &std::fs::read_to_string(&file).unwrap());
            for used in crate_paths(&non_test(&text)) {
                let module = reexports.get(&used).cloned().unwrap_or(used);
                if names.contains(&module) && module != *name {
                    deps.insert(module);
                }
            }
        }
    }
    modules
}

/// `text` (the file `file` under `src`) without comments, with the `super::` chains that
/// climb to the crate root written as `crate::`: in `src/x.rs` or `src/x/mod.rs` one
/// `super::`, in `src/x/y.rs` two.
fn crate_relative(file: &Path, src: &Path, text: &str) -> String {
    let relative = file.strip_prefix(src).unwrap();
    let mut depth = relative.components().count();
    if relative.file_name().is_some_and(|n| n == "mod.rs") {
        depth -= 1;
    }
    let to_root = "super::".repeat(depth);
    text.lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
        .replace(&to_root, "crate::")
}

fn imports() -> BTreeMap<String, BTreeSet<String>> {
    imports_in(SRC)
}

/// The modules of `modules` in an import cycle (empty if none).
fn cyclic(modules: &BTreeMap<String, BTreeSet<String>>) -> BTreeMap<&String, &BTreeSet<String>> {
    // Peel off modules whose dependencies are all peeled: what is left is in a cycle.
    let mut placed: BTreeSet<String> = BTreeSet::new();
    loop {
        let next: Vec<String> = modules
            .iter()
            .filter(|(m, deps)| !placed.contains(*m) && deps.is_subset(&placed))
            .map(|(m, _)| m.clone())
            .collect();
        if next.is_empty() {
            break;
        }
        placed.extend(next);
    }
    modules
        .iter()
        .filter(|(m, _)| !placed.contains(*m))
        .collect()
}

/// Every module of the crate in `src` is in exactly one layer of its `lib.rs`'s
/// statement, and imports only from layers above its own.
fn check_layers(src: &str) {
    let lib = std::fs::read_to_string(Path::new(src).join("lib.rs")).unwrap();
    let layers = stated_layers(&lib);
    assert!(
        layers.len() >= 3,
        "{src}/lib.rs states no layers: {layers:?}"
    );
    let layer_of = |module: &str| -> usize {
        let found: Vec<usize> = (0..layers.len())
            .filter(|&i| layers[i].contains(module))
            .collect();
        assert_eq!(
            found.len(),
            1,
            "`{module}` in layers {found:?} of {src}/lib.rs's statement"
        );
        found[0]
    };
    let modules = imports_in(src);
    let mut against = Vec::new();
    for (module, deps) in &modules {
        let own = layer_of(module);
        for dep in deps {
            if layer_of(dep) >= own {
                against.push(format!(
                    "{module} (layer {own}) imports {dep} (layer {})",
                    layer_of(dep)
                ));
            }
        }
    }
    assert!(
        against.is_empty(),
        "imports against {src}/lib.rs's layers: {against:#?}"
    );
}

#[test]
fn top_level_modules_have_no_import_cycle() {
    let modules = imports();
    let cyclic = cyclic(&modules);
    assert!(
        cyclic.is_empty(),
        "top-level modules in an import cycle (module -> what it imports): {cyclic:#?}"
    );
    // The scan must see the imports that exist, or it proves nothing.
    assert!(modules["engine"].contains("scheme"), "{modules:#?}");
    assert!(modules["ed25519"].contains("verifier"), "{modules:#?}");
}

/// Every module is in exactly one layer of `lib.rs`'s statement, and imports only from
/// layers above its own.
#[test]
fn imports_follow_the_layers_lib_rs_states() {
    let layers = stated_layers(&std::fs::read_to_string(Path::new(SRC).join("lib.rs")).unwrap());
    assert!(layers.len() >= 5, "lib.rs states no layers: {layers:?}");
    check_layers(SRC);
}

/// The prover crate: no cycle, and the order its `lib.rs` states (the kernels below the
/// STARK configuration, the AIR below the kernels).
#[test]
fn the_prover_follows_its_layers() {
    let modules = imports_in(AGGREGATE_SRC);
    assert!(cyclic(&modules).is_empty(), "{modules:#?}");
    assert!(modules["stark"].contains("lanes"), "{modules:#?}");
    assert!(modules["lanes"].contains("field"), "{modules:#?}");
    assert!(!modules["statement"].contains("stark"), "{modules:#?}");
    check_layers(AGGREGATE_SRC);
}

/// The pipeline: the messages below the stages, no cycle.
#[test]
fn the_pipeline_follows_its_layers() {
    let modules = imports_in(PIPELINE_SRC);
    assert!(cyclic(&modules).is_empty(), "{modules:#?}");
    assert!(modules["tile"].contains("packet"), "{modules:#?}");
    assert!(modules["commit"].contains("packet"), "{modules:#?}");
    check_layers(PIPELINE_SRC);
}

/// The test-item stripping keeps what follows a test module and drops only the test.
#[test]
fn stripping_tests_keeps_the_code_after_them() {
    let text = "mod a;\n#[cfg(test)]\nmod tests;\n#[cfg(test)]\nmod inline { use crate::x; fn f() { let c = '}'; } }\nuse crate::scheme;\n#[cfg(all(test, feature = \"y\"))]\nuse crate::z;\nfn g() {}\n";
    let kept = non_test(text);
    assert_eq!(crate_paths(&kept), ["scheme"], "{kept}");
    assert!(
        kept.contains("fn g() {}") && kept.contains("mod a;"),
        "{kept}"
    );
}
