//! The samples in README.md and docs/ are real: every ```text block there says, in an HTML
//! comment on the line before it, where its content comes from, and this test checks it.
//!
//! - `<!-- checked: stdout -->` / `<!-- checked: stderr -->`: the block starts with the command
//!   (`$ [VAR=value ...] cargo run --release --example NAME [-- ARGS]`) and shows what it prints
//!   on that stream. The test runs the example (the build `cargo test` made) the same way, in a
//!   directory shared by the page's samples (a file one sample writes, the next can read), and
//!   compares line by line with timings masked: a number with a decimal point, or followed by a
//!   unit of time or `Mflop/s`, matches any number. Everything else (supersteps, h, bytes,
//!   counts, text) must be equal.
//! - `<!-- checked: ui-tests/tests/ui/... .stderr -->`: a compile error, quoted exactly from the
//!   expected output of that ui-tests case (which trybuild checks against rustc).
//! - `<!-- checked: run error NAME -->`: a run-time error, produced by the case NAME below.
//! - `<!-- not output -->`: a block that shows no output (a file, a formula).
//!
//! A ```text block with no such comment fails the test, so a new sample cannot go unchecked.

use std::path::{Path, PathBuf};
use std::process::Command;

const PAGES: [&str; 4] = ["README.md", "docs/cost.md", "docs/guide.md", "docs/semantics.md"];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `target/<profile>/examples/<name>`, which `cargo test` builds before running this test.
fn example(name: &str) -> PathBuf {
    let mut dir = std::env::current_exe().expect("test binary path");
    dir.pop();
    if dir.ends_with("deps") {
        dir.pop();
    }
    dir.join("examples").join(name)
}

/// A ```text block: the marker before it, its first line number (1-based) and its lines.
struct Block {
    marker: Option<String>,
    line: usize,
    lines: Vec<String>,
}

/// The ```text blocks of a page, with indentation removed (a block may sit in a list item).
fn text_blocks(page: &str) -> Vec<Block> {
    let text = std::fs::read_to_string(root().join(page)).unwrap_or_else(|e| panic!("{page}: {e}"));
    let lines: Vec<&str> = text.lines().collect();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i].trim_start();
        if t.starts_with("```") {
            let indent = lines[i].len() - t.len();
            let is_text = t == "```text";
            let start = i;
            i += 1;
            let mut body = Vec::new();
            while i < lines.len() && lines[i].trim_start() != "```" {
                body.push(lines[i].get(indent..).unwrap_or("").to_string());
                i += 1;
            }
            if is_text {
                let marker = start
                    .checked_sub(1)
                    .map(|j| lines[j].trim())
                    .and_then(|l| l.strip_prefix("<!--"))
                    .and_then(|l| l.strip_suffix("-->"))
                    .map(|l| l.trim().to_string());
                blocks.push(Block { marker, line: start + 1, lines: body });
            }
        }
        i += 1;
    }
    blocks
}

/// `line` as tokens, with timings replaced by `#` and their units by `<time>` (a run may print
/// `1803 ns` where the sample has `20.3 us`).
fn masked(line: &str) -> Vec<String> {
    const TIME: [&str; 5] = ["ns", "us", "µs", "ms", "s"];
    let words: Vec<&str> = line.split_whitespace().collect();
    let bare = |w: &str| w.trim_end_matches([',', ';', ')']).to_string();
    let number = |w: &str| bare(w).parse::<f64>().is_ok();
    let unit_at = |i: usize| words.get(i).map(|u| bare(u));
    words
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let next = unit_at(i + 1);
            let before_unit = next.as_deref().is_some_and(|u| TIME.contains(&u) || u == "Mflop/s");
            if number(w) && (w.contains('.') || before_unit) {
                "#".to_string()
            } else if i > 0 && number(words[i - 1]) && TIME.contains(&bare(w).as_str()) {
                w.replacen(&bare(w), "<time>", 1)
            } else {
                w.to_string()
            }
        })
        .collect()
}

/// Runs the command of a sample (`$ VAR=value cargo run --release --example NAME -- ARGS`) in
/// `dir` and returns what it printed on `stream`.
fn run_sample(command: &str, stream: &str, dir: &Path) -> String {
    let mut words = command.split_whitespace().peekable();
    let mut cmd_env = Vec::new();
    while let Some(w) = words.peek() {
        match w.split_once('=') {
            Some((k, v)) if k.chars().all(|c| c.is_ascii_uppercase() || c == '_') => {
                cmd_env.push((k.to_string(), v.to_string()));
                words.next();
            }
            _ => break,
        }
    }
    let head: Vec<&str> = words.by_ref().take(4).collect();
    assert_eq!(head[..3], ["cargo", "run", "--release"], "a sample's command runs an example: {command}");
    let name = head[3].strip_prefix("--example=").map(String::from).unwrap_or_else(|| {
        assert_eq!(head[3], "--example", "{command}");
        words.next().expect("the example's name").to_string()
    });
    let args: Vec<&str> = match words.next() {
        Some("--") => words.collect(),
        None => Vec::new(),
        Some(w) => panic!("`{w}` in {command}: arguments follow `--`"),
    };
    let out = Command::new(example(&name))
        .args(&args)
        .envs(cmd_env)
        .env_remove("BSP_STATS")
        .env("RUST_BACKTRACE", "0")
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", example(&name).display()));
    assert!(out.status.success(), "`{command}` failed: {}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    let bytes = if stream == "stdout" { out.stdout } else { out.stderr };
    String::from_utf8(bytes).expect("utf-8 output")
}

/// The run-time errors the pages show, each made by a real run.
fn run_error(name: &str) -> String {
    match name {
        "registration mismatch" => {
            let err = bsp::run(3, |ctx| {
                // Process 1 registers two variables in one sync, the others one.
                if ctx.pid() == 1 {
                    let (a, b) = ctx.register((vec![0u8; 4], vec![0u8; 4]));
                    ctx.unregister((a, b));
                } else {
                    let a = ctx.register(vec![0u8; 4]);
                    ctx.unregister(a);
                }
            })
            .unwrap_err();
            // Every process finds a collective mismatch; the error names the first to record it.
            assert!(err.pid().is_some_and(|p| p < 3), "{err:?}");
            format!("process {} failed: {}", err.pid().unwrap(), err.message())
        }
        _ => panic!("no run-time error case named `{name}`"),
    }
}

/// A block as one line per paragraph (the pages wrap long messages).
fn unwrapped(lines: &[String]) -> String {
    lines.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ")
}

#[test]
fn every_sample_in_the_docs_matches_a_run() {
    let mut checked = 0;
    for page in PAGES {
        let dir = std::env::temp_dir().join(format!("bsp-docs-{}-{}", std::process::id(), page.replace('/', "-")));
        std::fs::create_dir_all(&dir).unwrap();
        for block in text_blocks(page) {
            let at = format!("{page}:{}", block.line);
            let marker = block.marker.as_deref().unwrap_or_else(|| {
                panic!(
                    "{at}: a ```text block needs a `<!-- checked: ... -->` or `<!-- not output -->` comment before it"
                )
            });
            if marker == "not output" {
                continue;
            }
            let what =
                marker.strip_prefix("checked:").unwrap_or_else(|| panic!("{at}: unknown marker `{marker}`")).trim();
            if what == "stdout" || what == "stderr" {
                let command =
                    block.lines[0].strip_prefix("$ ").unwrap_or_else(|| panic!("{at}: starts with `$ command`"));
                let got = run_sample(command, what, &dir);
                let got: Vec<Vec<String>> = got.lines().map(masked).collect();
                let want: Vec<Vec<String>> = block.lines[1..].iter().map(|l| masked(l)).collect();
                assert_eq!(
                    got, want,
                    "{at}: the sample differs from a run of `{command}` (timings masked as #); run it and paste its {what}"
                );
            } else if let Some(name) = what.strip_prefix("run error ") {
                // The pid of a failure every process finds is the first to record it: any.
                let any_pid = |s: String| match s.split_once(" failed: ") {
                    Some((who, rest)) if who.starts_with("process ") => format!("process _ failed: {rest}"),
                    _ => s,
                };
                assert_eq!(
                    any_pid(unwrapped(&block.lines)),
                    any_pid(run_error(name)),
                    "{at}: the error `{name}` reads differently now"
                );
            } else {
                let quoted = std::fs::read_to_string(root().join(what)).unwrap_or_else(|e| panic!("{at}: {what}: {e}"));
                let quoted: Vec<&str> = quoted.trim_end().lines().collect();
                assert_eq!(block.lines, quoted, "{at}: the block must quote {what} exactly");
            }
            checked += 1;
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(checked >= 5, "only {checked} samples found: is the marker syntax still `<!-- checked: ... -->`?");
}

#[test]
fn masking_hides_timings_only() {
    assert_eq!(masked("    9        0   9868.74 us   1.00"), ["9", "0", "#", "<time>", "#"]);
    assert_eq!(masked("1  29.1 us  7303 ns  32  4"), ["1", "#", "<time>", "#", "<time>", "32", "4"]);
    assert_eq!(masked("1  1803 ns  7303 ns  32  4"), masked("1  29.1 us  7303 ns  32  4"));
    assert_ne!(masked("1  29.1 us  7303 ns  33  4"), masked("1  29.1 us  7303 ns  32  4"));
    assert_eq!(
        masked("p = 2, r = 9901 Mflop/s, g = 211.90 ns per word, l = 1.908 us (measured with p = 2)"),
        [
            "p",
            "=",
            "2,",
            "r",
            "=",
            "#",
            "Mflop/s,",
            "g",
            "=",
            "#",
            "<time>",
            "per",
            "word,",
            "l",
            "=",
            "#",
            "<time>",
            "(measured",
            "with",
            "p",
            "=",
            "2)"
        ]
    );
}

/// CONTRIBUTING.md's table of the runtime's files names every file of `bsp-runtime/src/`.
#[test]
fn contributing_lists_every_runtime_file() {
    let contributing = std::fs::read_to_string(root().join("CONTRIBUTING.md")).unwrap();
    let src = root().join("bsp-runtime/src");
    let mut missing = Vec::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let name = path.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
                if !contributing.contains(&format!("`{name}`")) {
                    missing.push(name);
                }
            }
        }
    }
    missing.sort();
    assert!(missing.is_empty(), "CONTRIBUTING.md does not list these files of bsp-runtime/src/: {missing:?}");
}

/// The facade documents the runtime's items under `bsp::` by naming each (the glob that makes
/// them all `bsp::…` is hidden from rustdoc, which would copy bytemuck's and `core`'s docs
/// through it): every item the runtime's root exports, other than hidden ones and `bytemuck`,
/// is in the facade's list.
#[test]
fn the_facade_documents_every_runtime_item() {
    let names = |text: &str| -> Vec<String> {
        let mut names = Vec::new();
        let mut hidden = false;
        // The top-level `pub use` items, each possibly over several lines.
        let mut item = String::new();
        for line in text.lines() {
            if item.is_empty() {
                if line.starts_with("#[doc(hidden)]") {
                    hidden = true;
                    continue;
                }
                if !line.starts_with("pub use ") {
                    if !line.starts_with("#[") && !line.starts_with("//") {
                        hidden = false;
                    }
                    continue;
                }
            }
            item.push_str(line.trim());
            item.push(' ');
            if !line.trim_end().ends_with(';') {
                continue;
            }
            let path = std::mem::take(&mut item);
            let path = path.trim().trim_start_matches("pub use ").trim_end_matches(';');
            if std::mem::take(&mut hidden) {
                continue;
            }
            let (prefix, list) = match path.split_once('{') {
                Some((prefix, list)) => (prefix, list.trim_end_matches('}').trim().to_string()),
                None => ("", path.to_string()),
            };
            for part in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                let part = part.rsplit_once(" as ").map_or(part, |(_, alias)| alias);
                let name = part.rsplit("::").next().unwrap();
                let name =
                    if name == "self" { prefix.trim_end_matches("::").rsplit("::").next().unwrap() } else { name };
                names.push(name.to_string());
            }
        }
        names
    };
    let read = |path: &str| std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
    let runtime = names(&read("bsp-runtime/src/lib.rs"));
    let facade = names(&read("src/lib.rs"));
    assert!(runtime.len() > 30 && runtime.contains(&"Ctx".to_string()), "parsed {runtime:?}");
    let missing: Vec<&String> = runtime.iter().filter(|n| *n != "bytemuck" && !facade.contains(n)).collect();
    assert!(missing.is_empty(), "src/lib.rs does not list these items of the runtime (add them to its `pub use bsp_runtime::{{…}}`): {missing:?}");
}

/// README.md's table of examples names every program of `examples/`.
#[test]
fn readme_lists_every_example() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let table = readme.split_once("\n## Examples\n").expect("README.md has a section `## Examples`").1;
    let table = table.split("\n## ").next().unwrap();
    let rows: Vec<&str> = table.lines().filter(|l| l.starts_with("| `")).collect();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(root().join("examples")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let named = format!("`{name}`");
            // In the first column of a row.
            if !rows.iter().any(|row| row.split(" | ").next().is_some_and(|first| first.contains(&named))) {
                missing.push(name);
            }
        }
    }
    missing.sort();
    assert!(missing.is_empty(), "README.md's table of examples lacks: {missing:?}");
}
