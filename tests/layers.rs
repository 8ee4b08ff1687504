//! The module graph against docs/architecture.md: every module of `src/` is in the layer
//! table there, imports only from its own layer and those below, and no modules import each
//! other in a circle (top-level modules, and the files of one folder among themselves).
//!
//! Imports are read from the source: every `crate::a::b` and `super::x` path outside comments
//! and string literals, whether in a `use` line or inline.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
const DOC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/architecture.md");

/// The layer table: module name -> layer number.
fn layers() -> BTreeMap<String, u32> {
    let doc = std::fs::read_to_string(DOC).expect("docs/architecture.md");
    let mut map = BTreeMap::new();
    for line in doc.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // | layer | name | modules |
        if cells.len() != 5 {
            continue;
        }
        let Ok(layer) = cells[1].parse::<u32>() else {
            continue;
        };
        for m in cells[3].split(',').map(str::trim).filter(|m| !m.is_empty()) {
            assert!(
                map.insert(m.to_string(), layer).is_none(),
                "{m} is in two layers"
            );
        }
    }
    assert!(map.len() > 20, "the layer table was not found: {map:?}");
    map
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `src/a/b.rs` -> ["a", "b"]; `src/a/mod.rs` and `src/a.rs` -> ["a"].
fn module_path(file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(SRC).unwrap();
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The code of a file without comments, string literals (so that a path in a doc comment or a
/// message is not an import) and its unit tests (`#[cfg(test)] mod tests`, which may use
/// anything).
fn code_only(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]"
            && lines
                .peek()
                .is_some_and(|next| next.trim_start().starts_with("mod tests {"))
        {
            break;
        }
        let mut in_str = false;
        let mut prev = ' ';
        let mut kept = String::new();
        for c in line.chars() {
            if in_str {
                if c == '"' && prev != '\\' {
                    in_str = false;
                }
            } else if c == '"' {
                in_str = true;
            } else if c == '/' && prev == '/' {
                kept.pop();
                break;
            } else {
                kept.push(c);
            }
            prev = if prev == '\\' && c == '\\' { ' ' } else { c };
        }
        out.push_str(&kept);
        out.push('\n');
    }
    out
}

/// The first path segments after each occurrence of `prefix` (`crate::` or `super::`),
/// including those of a braced group right after it (`crate::{a, b::c}`).
fn targets(code: &str, prefix: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    // `a::b::c` at the start of `s`, up to the first character that does not continue it.
    let ident = |s: &str| -> Vec<String> {
        let mut path = Vec::new();
        let mut rest = s;
        loop {
            let n = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            if n == 0 {
                break;
            }
            path.push(rest[..n].to_string());
            match rest[n..].strip_prefix("::") {
                Some(more) => rest = more,
                None => break,
            }
        }
        path
    };
    let mut rest = code;
    while let Some(at) = rest.find(prefix) {
        let before = rest[..at].chars().last();
        rest = &rest[at + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let path = ident(item.trim());
                if !path.is_empty() {
                    found.push(path);
                }
            }
        } else {
            let path = ident(rest);
            if !path.is_empty() {
                found.push(path);
            }
        }
    }
    found
}

struct Graph {
    /// Every file's module path.
    modules: BTreeSet<Vec<String>>,
    /// File module -> the modules it names.
    edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
}

fn graph() -> Graph {
    let mut files = Vec::new();
    rust_files(Path::new(SRC), &mut files);
    let modules: BTreeSet<Vec<String>> = files
        .iter()
        .map(|f| module_path(f))
        .filter(|m| !m.is_empty() && m[0] != "main" && m[0] != "lib")
        .filter(|m| m.last().is_some_and(|p| p != "tests"))
        .collect();
    // The longest module path that `path` starts with.
    let resolve = |path: &[String]| -> Option<Vec<String>> {
        (1..=path.len())
            .rev()
            .map(|n| path[..n].to_vec())
            .find(|p| modules.contains(p))
    };
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for file in &files {
        let me = module_path(file);
        if !modules.contains(&me) || me.last().is_some_and(|p| p == "tests") {
            continue;
        }
        let code = code_only(&std::fs::read_to_string(file).unwrap());
        let is_folder_root = file.ends_with("mod.rs");
        let mut named = BTreeSet::new();
        for path in targets(&code, "crate::") {
            if let Some(m) = resolve(&path) {
                named.insert(m);
            }
        }
        // `super::x` in `a/b.rs` is `a::x`; in `a/mod.rs` it is the crate root (not counted).
        if !is_folder_root && me.len() > 1 {
            for path in targets(&code, "super::") {
                let mut full = me[..me.len() - 1].to_vec();
                full.extend(path);
                if let Some(m) = resolve(&full) {
                    named.insert(m);
                }
            }
        }
        named.remove(&me);
        edges.entry(me).or_default().extend(named);
    }
    Graph { modules, edges }
}

#[test]
fn every_module_is_in_the_layer_table_and_imports_downwards() {
    let layers = layers();
    let g = graph();
    let tops: BTreeSet<&String> = g.modules.iter().map(|m| &m[0]).collect();
    for top in &tops {
        assert!(
            layers.contains_key(*top),
            "src module '{top}' is missing from the layer table of docs/architecture.md"
        );
    }
    for name in layers.keys() {
        assert!(
            tops.contains(name),
            "the layer table names '{name}', which is not a module of src/"
        );
    }
    let mut wrong = Vec::new();
    for (from, to) in &g.edges {
        for t in to {
            let (a, b) = (layers[&from[0]], layers[&t[0]]);
            if b > a {
                wrong.push(format!(
                    "{} (layer {a}) imports {} (layer {b})",
                    from.join("::"),
                    t.join("::")
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports from a higher layer:\n{}",
        wrong.join("\n")
    );
}

/// The circles of `edges` (each as a path of nodes), found by depth-first search.
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    fn visit(
        n: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
        found: &mut Vec<Vec<String>>,
    ) {
        if let Some(i) = stack.iter().position(|s| s == n) {
            let mut c = stack[i..].to_vec();
            c.push(n.to_string());
            found.push(c);
            return;
        }
        if done.contains(n) {
            return;
        }
        stack.push(n.to_string());
        for m in edges.get(n).into_iter().flatten() {
            visit(m, edges, stack, done, found);
        }
        stack.pop();
        done.insert(n.to_string());
    }
    let mut found = Vec::new();
    let mut done = BTreeSet::new();
    for n in edges.keys() {
        visit(n, edges, &mut Vec::new(), &mut done, &mut found);
    }
    found
}

#[test]
fn no_modules_import_each_other_in_a_circle() {
    let g = graph();
    // Between top-level modules.
    let mut top: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, to) in &g.edges {
        for t in to.iter().filter(|t| t[0] != from[0]) {
            top.entry(from[0].clone()).or_default().insert(t[0].clone());
        }
    }
    let c = circles(&top);
    assert!(c.is_empty(), "circles between modules: {c:?}");
    // Among the files of one folder (a folder's mod.rs re-exports its files and is left out).
    let mut inner: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, to) in &g.edges {
        for t in to {
            if from.len() > 1 && t.len() > 1 && from[..from.len() - 1] == t[..t.len() - 1] {
                inner
                    .entry(from.join("::"))
                    .or_default()
                    .insert(t.join("::"));
            }
        }
    }
    let c = circles(&inner);
    assert!(c.is_empty(), "circles inside a folder: {c:?}");
}

#[test]
fn the_reader_of_imports_finds_them() {
    let code = code_only(
        "use crate::{a::b, c};\nuse super::d;\n// crate::e in a comment\nlet x = crate::f::g();\nlet s = \"crate::h\";\n",
    );
    let crate_paths = targets(&code, "crate::");
    assert_eq!(
        crate_paths,
        vec![
            vec!["a".to_string(), "b".to_string()],
            vec!["c".to_string()],
            vec!["f".to_string(), "g".to_string()]
        ]
    );
    assert_eq!(targets(&code, "super::"), vec![vec!["d".to_string()]]);
}
