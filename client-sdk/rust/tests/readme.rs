//! The README's examples are the code that tests/e2e.rs runs: every region
//! of tests/examples/mod.rs must appear verbatim (dedented) in README.md.

use std::path::Path;

fn regions(source: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut current: Option<(String, Vec<&str>)> = None;
    for line in source.lines() {
        let trimmed = line.trim();
        if let Some(name) = trimmed.strip_prefix("// region: ") {
            current = Some((name.to_owned(), Vec::new()));
        } else if trimmed == "// endregion" {
            let (name, lines) = current.take().expect("endregion without region");
            let indent = lines
                .iter()
                .filter(|l| !l.trim().is_empty())
                .map(|l| l.len() - l.trim_start().len())
                .min()
                .unwrap_or(0);
            let body: Vec<&str> = lines
                .iter()
                .map(|l| l.get(indent..).unwrap_or(""))
                .collect();
            out.push((name, body.join("\n")));
        } else if let Some((_, lines)) = current.as_mut() {
            lines.push(line);
        }
    }
    assert!(current.is_none(), "unterminated region");
    out
}

#[test]
fn readme_shows_every_example_verbatim() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    let source = std::fs::read_to_string(dir.join("tests/examples/mod.rs")).unwrap();
    let regions = regions(&source);
    assert!(regions.len() >= 3, "found only {} regions", regions.len());
    for (name, body) in regions {
        let block = format!("```rust\n{body}\n```");
        assert!(
            readme.contains(&block),
            "README.md lacks the `{name}` example:\n{block}"
        );
    }
}
