//! The crate's top-level modules form layers with no import cycle: each module's
//! non-test source names (through `crate::…` / `$crate::…` paths, root re-exports
//! resolved to their module) only modules of lower layers or its own. A new import that
//! closes a cycle fails here with the cycle it closes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src");

/// A file's text before its first `#[cfg(test)]`-style block (tests sit at the bottom).
fn non_test(text: &str) -> &str {
    let cut = ["#[cfg(test)]", "#[cfg(all(test"]
        .iter()
        .filter_map(|marker| text.find(marker))
        .min()
        .unwrap_or(text.len());
    &text[..cut]
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

#[test]
fn top_level_modules_have_no_import_cycle() {
    let lib = std::fs::read_to_string(Path::new(SRC).join("lib.rs")).unwrap();
    let reexports = root_reexports(&lib);
    let mut modules: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for entry in std::fs::read_dir(SRC).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        if name == "lib" {
            continue;
        }
        modules.insert(name, BTreeSet::new());
    }
    let names: BTreeSet<String> = modules.keys().cloned().collect();
    for (name, deps) in modules.iter_mut() {
        let dir = Path::new(SRC).join(name);
        let path = if dir.is_dir() {
            dir
        } else {
            Path::new(SRC).join(format!("{name}.rs"))
        };
        for file in files(&path) {
            let text = std::fs::read_to_string(&file).unwrap();
            for used in crate_paths(non_test(&text)) {
                let module = reexports.get(&used).cloned().unwrap_or(used);
                if names.contains(&module) && module != *name {
                    deps.insert(module);
                }
            }
        }
    }
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
    let cyclic: BTreeMap<&String, &BTreeSet<String>> = modules
        .iter()
        .filter(|(m, _)| !placed.contains(*m))
        .collect();
    assert!(
        cyclic.is_empty(),
        "top-level modules in an import cycle (module -> what it imports): {cyclic:#?}"
    );
    // The scan must see the imports that exist, or it proves nothing.
    assert!(modules["engine"].contains("scheme"), "{modules:#?}");
    assert!(modules["ed25519"].contains("verifier"), "{modules:#?}");
}
