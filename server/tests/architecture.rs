//! The module structure of `server/src`, checked from the source:
//!
//! 1. no import cycle between files;
//! 2. no import cycle between the entries (files and folders) of any folder;
//! 3. the layers: `error`, `config`, `telemetry` and `tls` import only each
//!    other; the domain imports none of `onebot`, `fetch`, `archive`,
//!    `grpc`, `mcp`, `auth`, `app` nor the transport crates (tonic,
//!    tungstenite, reqwest, hyper, axum, rmcp); `onebot` imports from the
//!    domain only its vocabulary (`domain::model`), its ports
//!    (`domain::ports`) and the call deadline (`domain::call`); the edges
//!    `grpc` and `mcp` import no adapter (`onebot`, `fetch`, `archive`), not
//!    `app`, and not each other.
//!
//! An import is any path a file names (`use` items, and paths in code and
//! types), resolved to the deepest module it reaches: `onebot_gateway_domain::model::
//! ChatRef` is an import of `domain/model/mod.rs`. Test code (`#[cfg(test)]`
//! items and test-only module files) is left out: tests may build fixtures
//! with an adapter's decoder. The binary (`main.rs`, `cli/`) is a crate of
//! its own over the library and is checked the same way.
//!
//! Run it alone with `cargo test -p onebot-gateway --test architecture`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// A module: its path from the crate root (`["domain", "model"]`) and the
/// file that holds it.
#[derive(Debug, Clone)]
struct Module {
    /// The crate: `lib` or `bin`.
    krate: &'static str,
    path: Vec<String>,
    file: PathBuf,
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Whether `attrs` make an item test-only (`#[cfg(test)]`).
fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>()
                .is_ok_and(|m| m.path().is_ident("test"))
    })
}

/// Every non-test module file of the crate rooted at `root` (`lib.rs` or
/// `main.rs`), following `mod` declarations.
fn modules(krate: &'static str, root: &Path) -> Vec<Module> {
    let mut out = Vec::new();
    walk(krate, root, Vec::new(), &mut out);
    out
}

fn walk(krate: &'static str, file: &Path, path: Vec<String>, out: &mut Vec<Module>) {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    out.push(Module {
        krate,
        path: path.clone(),
        file: file.to_path_buf(),
    });
    // A file's child modules live in the folder named after it (or beside
    // `mod.rs`, `lib.rs`, `main.rs`).
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let dir = match stem {
        "mod" | "lib" | "main" => file.parent().unwrap().to_path_buf(),
        _ => file.with_extension(""),
    };
    for item in &ast.items {
        let syn::Item::Mod(m) = item else { continue };
        if m.content.is_some() || is_test(&m.attrs) {
            continue;
        }
        let name = m.ident.to_string();
        let candidates = [
            dir.join(format!("{name}.rs")),
            dir.join(&name).join("mod.rs"),
        ];
        let child = candidates
            .iter()
            .find(|p| p.is_file())
            .unwrap_or_else(|| panic!("module {name} of {} has no file", file.display()));
        let mut child_path = path.clone();
        child_path.push(name);
        walk(krate, child, child_path, out);
    }
}

/// The paths one file names, as written, with whether each came from a
/// glob `use` (`use super::*`).
#[derive(Default)]
struct Paths {
    found: Vec<Vec<String>>,
}

impl Paths {
    fn add_use(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.add_use(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let mut path = prefix.clone();
                if n.ident != "self" {
                    path.push(n.ident.to_string());
                }
                self.found.push(path);
            }
            syn::UseTree::Rename(r) => {
                let mut path = prefix.clone();
                if r.ident != "self" {
                    path.push(r.ident.to_string());
                }
                self.found.push(path);
            }
            syn::UseTree::Glob(_) => self.found.push(prefix.clone()),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.add_use(prefix, t);
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs = match item {
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Use(u) => &u.attrs,
            syn::Item::Struct(s) => &s.attrs,
            syn::Item::Enum(e) => &e.attrs,
            syn::Item::Const(c) => &c.attrs,
            syn::Item::Static(s) => &s.attrs,
            syn::Item::Trait(t) => &t.attrs,
            syn::Item::Type(t) => &t.attrs,
            syn::Item::Macro(m) => &m.attrs,
            _ => return syn::visit::visit_item(self, item),
        };
        if is_test(attrs) {
            return;
        }
        if let syn::Item::Use(u) = item {
            self.add_use(&mut Vec::new(), &u.tree);
            return;
        }
        syn::visit::visit_item(self, item);
    }

    // `pub(super)` names a module without importing from it.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    fn visit_path(&mut self, path: &'ast syn::Path) {
        self.found
            .push(path.segments.iter().map(|s| s.ident.to_string()).collect());
        syn::visit::visit_path(self, path);
    }
}

/// A file's imports: the module files its paths reach.
struct Graph {
    root: PathBuf,
    modules: Vec<Module>,
    /// Edges between indexes of `modules`.
    edges: BTreeSet<(usize, usize)>,
    /// External crates each file names (first segment of its paths).
    externs: BTreeMap<usize, BTreeSet<String>>,
}

fn graph(src: &Path) -> Graph {
    let mut all = modules("lib", &src.join("lib.rs"));
    if src.join("main.rs").is_file() {
        all.extend(modules("bin", &src.join("main.rs")));
    }
    let modules = all;
    let index: BTreeMap<(&str, Vec<String>), usize> = modules
        .iter()
        .enumerate()
        .map(|(i, m)| ((m.krate, m.path.clone()), i))
        .collect();
    let mut edges = BTreeSet::new();
    let mut externs: BTreeMap<usize, BTreeSet<String>> = BTreeMap::new();
    for (i, m) in modules.iter().enumerate() {
        let text = std::fs::read_to_string(&m.file).unwrap();
        let ast = syn::parse_file(&text).unwrap();
        let mut paths = Paths::default();
        paths.visit_file(&ast);
        for raw in paths.found {
            let Some(first) = raw.first() else { continue };
            // Resolve the path's start to a crate and a module path.
            let (krate, mut full): (&str, Vec<String>) = match first.as_str() {
                "crate" => (m.krate, raw[1..].to_vec()),
                "onebot_gateway" => ("lib", raw[1..].to_vec()),
                "self" => (m.krate, [m.path.clone(), raw[1..].to_vec()].concat()),
                "super" => {
                    let mut base = m.path.clone();
                    let mut rest = &raw[..];
                    while rest.first().is_some_and(|s| s == "super") {
                        base.pop();
                        rest = &rest[1..];
                    }
                    (m.krate, [base, rest.to_vec()].concat())
                }
                other => {
                    // A child module named directly (`child::x`), or an
                    // external crate.
                    let mut child = m.path.clone();
                    child.push(other.to_string());
                    if index.contains_key(&(m.krate, child)) {
                        (m.krate, [m.path.clone(), raw.clone()].concat())
                    } else {
                        if raw.len() > 1 {
                            externs.entry(i).or_default().insert(other.to_string());
                        }
                        continue;
                    }
                }
            };
            // The deepest module the path reaches.
            let target = loop {
                if let Some(t) = index.get(&(krate, full.clone())) {
                    break Some(*t);
                }
                if full.pop().is_none() {
                    break None;
                }
            };
            if let Some(t) = target
                && t != i
            {
                edges.insert((i, t));
            }
        }
    }
    Graph {
        root: src.to_path_buf(),
        modules,
        edges,
        externs,
    }
}

impl Graph {
    /// The file of a module, relative to the source root, for messages.
    fn name(&self, i: usize) -> String {
        let m = &self.modules[i];
        m.file
            .strip_prefix(&self.root)
            .unwrap_or(&m.file)
            .display()
            .to_string()
    }
}

/// Strongly connected components of more than one node (Tarjan).
fn cycles(nodes: usize, edges: &BTreeSet<(usize, usize)>) -> Vec<Vec<usize>> {
    struct State<'a> {
        adj: Vec<Vec<usize>>,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: &'a mut Vec<Vec<usize>>,
    }
    fn strong(s: &mut State<'_>, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for w in s.adj[v].clone() {
            match s.index[w] {
                None => {
                    strong(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut adj = vec![Vec::new(); nodes];
    for (a, b) in edges {
        adj[*a].push(*b);
    }
    let mut out = Vec::new();
    let mut state = State {
        adj,
        index: vec![None; nodes],
        low: vec![0; nodes],
        on_stack: vec![false; nodes],
        stack: Vec::new(),
        next: 0,
        out: &mut out,
    };
    for v in 0..nodes {
        if state.index[v].is_none() {
            strong(&mut state, v);
        }
    }
    out
}

/// Import cycles between files, each shown with its edges.
fn file_cycles(g: &Graph) -> Vec<String> {
    cycles(g.modules.len(), &g.edges)
        .iter()
        .map(|members| {
            let set: BTreeSet<usize> = members.iter().copied().collect();
            g.edges
                .iter()
                .filter(|(a, b)| set.contains(a) && set.contains(b))
                .map(|(a, b)| format!("  {} -> {}", g.name(*a), g.name(*b)))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect()
}

/// Import cycles between the entries of a folder, each shown with the file
/// edges that make it.
fn folder_cycles(g: &Graph) -> Vec<String> {
    let mut problems = Vec::new();
    // Every folder (a module with children), at every depth.
    let folders: BTreeSet<(&str, Vec<String>)> = g
        .modules
        .iter()
        .filter(|m| !m.path.is_empty())
        .map(|m| (m.krate, m.path[..m.path.len() - 1].to_vec()))
        .collect();
    for (krate, folder) in folders {
        // The entry of `folder` a module lies in: the folder itself (its
        // `mod.rs`), or one of its children.
        let entry = |m: &Module| -> Option<String> {
            if m.krate != krate || !m.path.starts_with(&folder) {
                return None;
            }
            Some(
                m.path
                    .get(folder.len())
                    .cloned()
                    .unwrap_or_else(|| ".".into()),
            )
        };
        let mut names: Vec<String> = g.modules.iter().filter_map(entry).collect();
        names.sort();
        names.dedup();
        let id = |n: &String| names.iter().position(|x| x == n).unwrap();
        let mut edges = BTreeSet::new();
        for (a, b) in &g.edges {
            if let (Some(ea), Some(eb)) = (entry(&g.modules[*a]), entry(&g.modules[*b]))
                && ea != eb
            {
                edges.insert((id(&ea), id(&eb)));
            }
        }
        for c in cycles(names.len(), &edges) {
            let members: BTreeSet<&String> = c.iter().map(|i| &names[*i]).collect();
            let lines: Vec<String> = g
                .edges
                .iter()
                .filter_map(|(a, b)| {
                    let (ea, eb) = (entry(&g.modules[*a])?, entry(&g.modules[*b])?);
                    (ea != eb && members.contains(&ea) && members.contains(&eb))
                        .then(|| format!("  {} -> {}", g.name(*a), g.name(*b)))
                })
                .collect();
            problems.push(format!(
                "{krate} {}: {:?}\n{}",
                if folder.is_empty() {
                    "crate root".to_string()
                } else {
                    folder.join("::")
                },
                members,
                lines.join("\n")
            ));
        }
    }
    problems
}

/// The first segment of a library module's path (`domain`, `onebot`, ...).
fn top(m: &Module) -> Option<&str> {
    (m.krate == "lib")
        .then(|| m.path.first().map(String::as_str))
        .flatten()
}

/// Imports that go against the layers.
fn layer_violations(g: &Graph) -> Vec<String> {
    const LEAVES: [&str; 4] = ["error", "config", "telemetry", "tls"];
    const DOMAIN_MUST_NOT: [&str; 7] = ["onebot", "fetch", "archive", "grpc", "mcp", "auth", "app"];
    const TRANSPORT_CRATES: [&str; 7] = [
        "tonic",
        "tonic_health",
        "tokio_tungstenite",
        "reqwest",
        "hyper",
        "axum",
        "rmcp",
    ];
    let mut problems = Vec::new();
    for (a, b) in &g.edges {
        let (from, to) = (&g.modules[*a], &g.modules[*b]);
        let (Some(f), Some(t)) = (top(from), top(to)) else {
            continue;
        };
        let bad = if LEAVES.contains(&f) {
            (!LEAVES.contains(&t)).then_some("a leaf imports a module above it")
        } else if f == "domain" {
            DOMAIN_MUST_NOT
                .contains(&t)
                .then_some("the domain imports an adapter or an edge")
        } else if f == "onebot" && t == "domain" {
            let allowed = matches!(
                to.path.get(1).map(String::as_str),
                Some("model" | "ports" | "call")
            );
            (!allowed).then_some("the OneBot adapter imports domain internals")
        } else if f == "grpc" || f == "mcp" {
            let other_edge = if f == "grpc" { "mcp" } else { "grpc" };
            (matches!(t, "onebot" | "fetch" | "archive" | "app") || t == other_edge)
                .then_some("an edge (grpc, mcp) imports an adapter, the wiring or the other edge")
        } else {
            None
        };
        if let Some(why) = bad {
            problems.push(format!("{why}: {} -> {}", g.name(*a), g.name(*b)));
        }
    }
    for (i, crates) in &g.externs {
        let m = &g.modules[*i];
        if top(m) == Some("domain") {
            for c in crates
                .iter()
                .filter(|c| TRANSPORT_CRATES.contains(&c.as_str()))
            {
                problems.push(format!("the domain uses the crate {c}: {}", g.name(*i)));
            }
        }
    }
    problems
}

#[test]
fn no_import_cycle_between_files() {
    let found = file_cycles(&graph(&src()));
    assert!(
        found.is_empty(),
        "import cycles between files:\n{}",
        found.join("\n\n")
    );
}

#[test]
fn no_import_cycle_between_the_entries_of_a_folder() {
    let found = folder_cycles(&graph(&src()));
    assert!(
        found.is_empty(),
        "import cycles between the entries of a folder:\n{}",
        found.join("\n\n")
    );
}

#[test]
fn layers_import_only_downwards() {
    let found = layer_violations(&graph(&src()));
    assert!(
        found.is_empty(),
        "layering violations:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_checks_catch_what_they_are_for() {
    // A small tree with one of each fault; each check must report it.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let write = |path: &str, text: &str| {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write(
        "lib.rs",
        "pub mod config; pub mod domain; pub mod grpc; pub mod mcp; pub mod onebot;",
    );
    // An edge reaching into the adapter and into the other edge.
    write("grpc.rs", "pub struct G;");
    write(
        "mcp.rs",
        "use onebot_gateway_onebot::x::X; use onebot_gateway_grpc::G;",
    );
    write(
        "config.rs",
        "pub struct C; pub fn f() { onebot_gateway_domain::a::g(); }",
    );
    write("domain/mod.rs", "pub mod a; pub mod b; pub mod c;");
    // A file cycle: a <-> b.
    write(
        "domain/a.rs",
        "use super::b::B; pub struct A; pub fn g() {}",
    );
    write(
        "domain/b.rs",
        "use onebot_gateway_domain::a::A; pub struct B;",
    );
    // The domain reaching into the adapter, and a transport crate.
    write(
        "domain/c.rs",
        "use onebot_gateway_onebot::x::X; fn f() { let _ = tonic::Status::ok(\"\"); }",
    );
    write("onebot/mod.rs", "pub mod x; pub mod y;");
    // domain/c <-> onebot/x also makes the crate root's entries `domain`
    // and `onebot` a folder cycle.
    write("onebot/x.rs", "pub struct X; use onebot_gateway_domain::c;");
    write("onebot/y.rs", "use onebot_gateway_domain::b::B;");
    let g = graph(root);
    let files = file_cycles(&g);
    assert!(
        files
            .iter()
            .any(|c| c.contains("domain/a.rs -> domain/b.rs")),
        "{files:?}"
    );
    let folders = folder_cycles(&g);
    assert!(
        folders.iter().any(|c| c.contains("crate root")),
        "the domain <-> onebot folder cycle: {folders:?}"
    );
    let layers = layer_violations(&g);
    for expected in [
        "a leaf imports a module above it: config.rs -> domain/a.rs",
        "the domain imports an adapter or an edge: domain/c.rs -> onebot/x.rs",
        "the OneBot adapter imports domain internals: onebot/y.rs -> domain/b.rs",
        "the domain uses the crate tonic: domain/c.rs",
        "an edge (grpc, mcp) imports an adapter, the wiring or the other edge: mcp.rs -> onebot/x.rs",
        "an edge (grpc, mcp) imports an adapter, the wiring or the other edge: mcp.rs -> grpc.rs",
    ] {
        assert!(
            layers.iter().any(|l| l == expected),
            "{expected}: {layers:?}"
        );
    }
    // Test code is left out: a `#[cfg(test)]` item may import anything.
    write(
        "domain/b.rs",
        "pub struct B; #[cfg(test)] mod tests { use onebot_gateway_domain::a::A; }",
    );
    let g = graph(root);
    assert!(
        !file_cycles(&g)
            .iter()
            .any(|c| c.contains("domain/b.rs -> domain/a.rs")),
        "test code counted"
    );
}

#[test]
fn the_check_sees_the_whole_tree() {
    // Every .rs file under src/ is either a module found from a crate root or
    // a test-only module: nothing escapes the checks above.
    let g = graph(&src());
    let found: BTreeSet<PathBuf> = g.modules.iter().map(|m| m.file.clone()).collect();
    let mut all = Vec::new();
    let mut dirs = vec![src()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                all.push(p);
            }
        }
    }
    let unchecked: Vec<String> = all
        .iter()
        .filter(|p| !found.contains(*p))
        .filter(|p| {
            // Test-only files: `tests.rs`, `*_tests.rs`, and the test kit.
            let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("");
            !(stem == "tests" || stem.ends_with("_tests") || stem == "testkit")
        })
        .map(|p| p.strip_prefix(src()).unwrap().display().to_string())
        .collect();
    assert!(
        unchecked.is_empty(),
        "files no crate root reaches: {unchecked:?}"
    );
    assert!(
        g.edges.len() > 100,
        "the graph looks empty: {} edges",
        g.edges.len()
    );
}
