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

/// Every `.rs` file under `path` (or `path` itself), less the files of test modules
/// (`tests.rs`, `*_tests.rs`: declared under `#[cfg(test)]` by their parents).
fn files(path: &Path) -> Vec<std::path::PathBuf> {
    if path.is_file() {
        let stem = path.file_stem().unwrap_or_default().to_string_lossy();
        if stem == "tests" || stem.ends_with("_tests") {
            return Vec::new();
        }
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
    without_comments(text).replace(&to_root, "crate::")
}

/// `text` with each line cut at its `//` (comments and doc comments, whose paths are
/// links, not imports).
fn without_comments(text: &str) -> String {
    text.lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
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

/// The module path of `file` under `src` (`src/a/b.rs` and `src/a/b/mod.rs` are `[a, b]`;
/// the crate root is `[]`).
fn module_path(file: &Path, src: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src).unwrap().with_extension("");
    let mut path: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().to_string())
        .collect();
    if path
        .last()
        .is_some_and(|last| ["mod", "lib", "main"].contains(&last.as_str()))
    {
        path.pop();
    }
    path
}

/// Every module path `text` (the non-test, comment-free source of the module at `at`)
/// names through `crate::…`, `$crate::…` or `super::…`, resolved from the crate root.
fn named_paths(text: &str, at: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let boundary = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        let (mut base, mut tail) = if boundary && rest.starts_with("crate::") {
            (Vec::new(), &rest["crate::".len()..])
        } else if boundary && rest.starts_with("super::") {
            let mut base = at.to_vec();
            let mut tail = rest;
            while let Some(next) = tail.strip_prefix("super::") {
                base.pop();
                tail = next;
            }
            (base, tail)
        } else {
            i += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        };
        let consumed = rest.len() - tail.len();
        loop {
            let end = tail
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(tail.len());
            if end == 0 {
                break;
            }
            base.push(tail[..end].to_string());
            match tail[end..].strip_prefix("::") {
                Some(next) => tail = next,
                None => break,
            }
        }
        out.push(base);
        i += consumed.max(1);
    }
    out
}

/// For every module of the crate in `src`, the cycles among its child modules: child a
/// imports child b when a file under a names a path under b. Returns each parent that
/// has one, with the children left in a cycle.
fn sibling_cycles(src: &str) -> Vec<(String, BTreeMap<String, BTreeSet<String>>)> {
    let src = Path::new(src);
    let mut edges: Vec<(Vec<String>, Vec<String>)> = Vec::new();
    let mut modules: BTreeSet<Vec<String>> = BTreeSet::new();
    for file in files(src)
        .into_iter()
        .filter(|f| f.extension().is_some_and(|e| e == "rs"))
    {
        let at = module_path(&file, src);
        let text = without_comments(&std::fs::read_to_string(&file).unwrap());
        for named in named_paths(&non_test(&text), &at) {
            edges.push((at.clone(), named));
        }
        modules.insert(at);
    }
    let mut parents: BTreeMap<Vec<String>, BTreeSet<String>> = BTreeMap::new();
    for module in &modules {
        for depth in 1..=module.len() {
            parents
                .entry(module[..depth - 1].to_vec())
                .or_default()
                .insert(module[depth - 1].clone());
        }
    }
    let mut found = Vec::new();
    for (parent, children) in parents {
        let mut graph: BTreeMap<String, BTreeSet<String>> = children
            .iter()
            .map(|c| (c.clone(), BTreeSet::new()))
            .collect();
        let under = |path: &[String]| -> Option<String> {
            (path.len() > parent.len() && path[..parent.len()] == parent[..])
                .then(|| path[parent.len()].clone())
                .filter(|child| children.contains(child))
        };
        for (from, to) in &edges {
            if let (Some(a), Some(b)) = (under(from), under(to)) {
                if a != b {
                    graph.get_mut(&a).unwrap().insert(b);
                }
            }
        }
        let left: BTreeMap<String, BTreeSet<String>> = cyclic(&graph)
            .into_iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if !left.is_empty() {
            found.push((format!("{}::{}", src.display(), parent.join("::")), left));
        }
    }
    found
}

/// No module of any crate in the workspace imports, through its children, a sibling
/// that imports it back: the layers hold at every depth, not only at the top.
#[test]
fn no_import_cycle_among_modules_at_any_depth() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let crates = [
        "crates/linesig/src",
        "crates/linesig-aggregate/src",
        "crates/linesig-pipeline/src",
        "crates/linesig-cli/src",
        "crates/linesig-ffi/src",
        "crates/linesig-paillier/src",
        "crates/linesig-simd/src",
        "bindings/python/src",
    ];
    let mut found = Vec::new();
    for krate in crates {
        found.extend(sibling_cycles(&format!("{root}/{krate}")));
    }
    assert!(found.is_empty(), "modules in an import cycle: {found:#?}");
}

/// The scan sees a cycle where there is one, at depth.
#[test]
fn a_nested_cycle_is_found() {
    let dir = std::env::temp_dir().join(format!("linesig-layers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("a")).unwrap();
    std::fs::write(dir.join("lib.rs"), "mod a;\n").unwrap();
    std::fs::write(dir.join("a/mod.rs"), "mod b;\nmod c;\n").unwrap();
    std::fs::write(dir.join("a/b.rs"), "use super::c::X;\npub struct Y;\n").unwrap();
    std::fs::write(
        dir.join("a/c.rs"),
        "use crate::a::b::Y; // b\npub struct X;\n",
    )
    .unwrap();
    let found = sibling_cycles(dir.to_str().unwrap());
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].1.len(), 2, "{found:?}");
}
