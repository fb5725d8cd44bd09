//! Prepares the Markdown pages that the crate docs include (README.md as the front page, the
//! guide, the semantics, the cost walk-through and PERFORMANCE.md as modules of `bsp::docs`).
//!
//! The pages are written for a reader of the source tree, where `docs/guide.md` and
//! `docs/trace-timeline.png` are files next to each other. In rendered API docs those relative
//! links lead nowhere, so this copies each page to `OUT_DIR` with its links rewritten:
//!
//! - a link to another page becomes an intra-doc link to its module (`crate::docs::guide`,
//!   keeping a `#fragment`), and a link to the README a link to the crate root;
//! - an image in `docs/` is embedded as a `data:` URI, so it shows without a web server;
//! - a link to a file the crate does not ship (CONTRIBUTING.md) leads to that file in the
//!   repository (the manifest's `repository`).
//!
//! Links are the inline form `[text](target)` / `![alt](target)`: the pages use no other.

use std::fmt::Write as _;
use std::path::Path;

/// (source file, the name in `OUT_DIR`, the directory its relative links start from)
const PAGES: [(&str, &str, &str); 5] = [
    ("README.md", "README.md", ""),
    ("docs/guide.md", "guide.md", "docs/"),
    ("docs/semantics.md", "semantics.md", "docs/"),
    ("docs/cost.md", "cost.md", "docs/"),
    ("PERFORMANCE.md", "PERFORMANCE.md", ""),
];

fn main() {
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    for (src, name, dir) in PAGES {
        println!("cargo:rerun-if-changed={src}");
        let text = std::fs::read_to_string(src).unwrap_or_else(|e| panic!("cannot read {src}: {e}"));
        let page = rewrite(&text, dir);
        std::fs::write(Path::new(&out).join(name), page).unwrap_or_else(|e| panic!("cannot write {name}: {e}"));
    }
    println!("cargo:rerun-if-changed=docs/trace-timeline.png");
    println!("cargo:rerun-if-changed=docs/scale.png");
}

/// `text` with every inline link target `(target)` after `]` replaced as the module docs say.
fn rewrite(text: &str, dir: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("](") {
        let (before, after) = rest.split_at(at);
        let Some(end) = after.find(')') else { break };
        let target = &after[2..end];
        let is_image = before.rfind("![").is_some_and(|i| before.rfind('[') == Some(i + 1));
        match resolve(target, dir, is_image) {
            Target::Link(t) => {
                out.push_str(before);
                out.push_str("](");
                out.push_str(&t);
                out.push(')');
            }
            Target::Repository(path) => {
                let repository = std::env::var("CARGO_PKG_REPOSITORY").expect("the manifest names the repository");
                let path = path.strip_prefix("docs/../").unwrap_or(&path);
                out.push_str(before);
                out.push_str("](");
                out.push_str(&format!("{repository}/blob/main/{path}"));
                out.push(')');
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

enum Target {
    Link(String),
    /// A file of the repository that the package does not hold: its path there.
    Repository(String),
}

fn resolve(target: &str, dir: &str, is_image: bool) -> Target {
    if target.contains("://") || target.starts_with('#') || target.starts_with("crate::") {
        return Target::Link(target.to_string());
    }
    let (file, fragment) = match target.split_once('#') {
        Some((f, frag)) => (f, format!("#{frag}")),
        None => (target, String::new()),
    };
    if !(file.ends_with(".md") || file.ends_with(".png")) {
        // Not a link to a file of the tree (code such as `f[i](x)` can look like one).
        return Target::Link(target.to_string());
    }
    let path = format!("{dir}{file}");
    if is_image {
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read the image {path}: {e}"));
        return Target::Link(format!("data:image/png;base64,{}", base64(&bytes)));
    }
    let module = match path.as_str() {
        "README.md" | "docs/../README.md" => "crate",
        "docs/guide.md" => "crate::docs::guide",
        "docs/semantics.md" => "crate::docs::semantics",
        "docs/cost.md" => "crate::docs::cost",
        "PERFORMANCE.md" | "docs/../PERFORMANCE.md" => "crate::docs::performance",
        _ => return Target::Repository(path),
    };
    Target::Link(format!("{module}{fragment}"))
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                let _ = write!(s, "{}", ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}
