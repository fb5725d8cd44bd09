//! `BSP_TRACE`: the Chrome trace-event file is well-formed JSON with one track per process,
//! ordered slices that nest properly, one superstep slice per sync, and the counts of a known
//! pattern; the SVG timeline and the summary table (`BSP_TRACE_SUMMARY`) are written too.
//!
//! The environment is read when a run starts, so each traced run happens in a child process:
//! this test binary runs its own ignored test `traced_program` with the variables set.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A JSON value (a checker small enough to read: strings without surrogate escapes).
#[derive(Debug, Clone, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    fn num(&self, key: &str) -> f64 {
        match self.get(key) {
            Some(Json::Num(n)) => *n,
            other => panic!("`{key}` is not a number in {self:?}: {other:?}"),
        }
    }
    fn str(&self, key: &str) -> &str {
        match self.get(key) {
            Some(Json::Str(s)) => s,
            other => panic!("`{key}` is not a string in {self:?}: {other:?}"),
        }
    }
}

struct Parser<'a> {
    s: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn parse(text: &str) -> Result<Json, String> {
        let mut p = Parser { s: text.as_bytes(), at: 0 };
        let v = p.value()?;
        p.ws();
        if p.at != p.s.len() {
            return Err(format!("trailing characters at byte {}", p.at));
        }
        Ok(v)
    }
    fn ws(&mut self) {
        while self.at < self.s.len() && self.s[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }
    fn eat(&mut self, c: u8) -> Result<(), String> {
        self.ws();
        if self.s.get(self.at) == Some(&c) {
            self.at += 1;
            Ok(())
        } else {
            Err(format!("expected `{}` at byte {}", c as char, self.at))
        }
    }
    fn value(&mut self) -> Result<Json, String> {
        self.ws();
        match self.s.get(self.at) {
            Some(b'{') => {
                self.at += 1;
                let mut fields = Vec::new();
                self.ws();
                if self.s.get(self.at) == Some(&b'}') {
                    self.at += 1;
                    return Ok(Json::Obj(fields));
                }
                loop {
                    self.ws();
                    let Json::Str(k) = self.value()? else { return Err(format!("object key at byte {}", self.at)) };
                    self.eat(b':')?;
                    fields.push((k, self.value()?));
                    self.ws();
                    match self.s.get(self.at) {
                        Some(b',') => self.at += 1,
                        Some(b'}') => {
                            self.at += 1;
                            return Ok(Json::Obj(fields));
                        }
                        _ => return Err(format!("expected `,` or `}}` at byte {}", self.at)),
                    }
                }
            }
            Some(b'[') => {
                self.at += 1;
                let mut items = Vec::new();
                self.ws();
                if self.s.get(self.at) == Some(&b']') {
                    self.at += 1;
                    return Ok(Json::Arr(items));
                }
                loop {
                    items.push(self.value()?);
                    self.ws();
                    match self.s.get(self.at) {
                        Some(b',') => self.at += 1,
                        Some(b']') => {
                            self.at += 1;
                            return Ok(Json::Arr(items));
                        }
                        _ => return Err(format!("expected `,` or `]` at byte {}", self.at)),
                    }
                }
            }
            Some(b'"') => {
                self.at += 1;
                let mut out = String::new();
                loop {
                    match self.s.get(self.at) {
                        None => return Err("unterminated string".to_string()),
                        Some(b'"') => {
                            self.at += 1;
                            return Ok(Json::Str(out));
                        }
                        Some(b'\\') => {
                            let c = *self.s.get(self.at + 1).ok_or("bad escape")?;
                            out.push(match c {
                                b'"' => '"',
                                b'\\' => '\\',
                                b'/' => '/',
                                b'n' => '\n',
                                b't' => '\t',
                                _ => return Err(format!("unsupported escape at byte {}", self.at)),
                            });
                            self.at += 2;
                        }
                        Some(&c) if c < 0x20 => {
                            return Err(format!("control character in a string at byte {}", self.at));
                        }
                        Some(_) => {
                            let rest = std::str::from_utf8(&self.s[self.at..]).map_err(|e| e.to_string())?;
                            let ch = rest.chars().next().expect("not empty");
                            out.push(ch);
                            self.at += ch.len_utf8();
                        }
                    }
                }
            }
            Some(b't') if self.s[self.at..].starts_with(b"true") => {
                self.at += 4;
                Ok(Json::Bool(true))
            }
            Some(b'f') if self.s[self.at..].starts_with(b"false") => {
                self.at += 5;
                Ok(Json::Bool(false))
            }
            Some(b'n') if self.s[self.at..].starts_with(b"null") => {
                self.at += 4;
                Ok(Json::Null)
            }
            Some(c) if c.is_ascii_digit() || *c == b'-' => {
                let start = self.at;
                while self.at < self.s.len()
                    && matches!(self.s[self.at], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                {
                    self.at += 1;
                }
                let t = std::str::from_utf8(&self.s[start..self.at]).expect("ascii");
                t.parse().map(Json::Num).map_err(|_| format!("bad number {t:?} at byte {start}"))
            }
            _ => Err(format!("unexpected character at byte {}", self.at)),
        }
    }
}

#[test]
fn the_json_checker_rejects_what_is_not_json() {
    assert!(Parser::parse(r#"{"a":[1,2.5e3,-3],"b":"x\"y","c":null,"d":true}"#).is_ok());
    for bad in [r#"{"a":1,}"#, r#"{"a" 1}"#, "[1 2]", r#"{"a":"b}"#, "[1],", "{'a':1}"] {
        assert!(Parser::parse(bad).is_err(), "{bad} was accepted");
    }
}

/// The number of syncs `traced_program` makes.
const SYNCS: usize = 5;

/// The program traced in the child processes. Superstep 1: every process puts one `u64` to
/// every other one (h = 8(p−1) bytes); superstep 3: everyone gets 2 `u64` from process 0.
#[test]
#[ignore = "run by the other tests of this file in a child process, with BSP_TRACE set"]
fn traced_program() {
    let p: usize = std::env::var("BSP_TRACE_TEST_P").map_or(3, |v| v.parse().expect("a number"));
    let steps = bsp_runtime::run(p, |ctx| {
        let (s, p) = (ctx.pid(), ctx.nprocs());
        let x = ctx.register(vec![0u64; p.max(2)]);
        for q in (0..p).filter(|&q| q != s) {
            ctx.put(q, &[s as u64], &x, s);
        }
        ctx.sync();
        ctx.sync();
        let mut two = [0u64; 2];
        ctx.superstep(|st| st.get(0, &x, 0, &mut two));
        ctx.unregister(x);
        ctx.step()
    })
    .expect("the traced program runs");
    assert!(steps.iter().all(|&k| k == SYNCS));
    println!("steps={}", steps[0]);
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bsp-trace-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir.join(name)
}

/// Runs `traced_program` on `p` processes with `vars` set; returns its stdout and stderr.
fn run_traced(p: usize, vars: &[(&str, &Path)]) -> (String, String) {
    let mut cmd = Command::new(std::env::current_exe().expect("the test binary"));
    cmd.args(["--exact", "traced_program", "--ignored", "--nocapture", "--test-threads=1"]);
    cmd.env("BSP_TRACE_TEST_P", p.to_string()).env_remove("BSP_TRACE").env_remove("BSP_TRACE_SUMMARY");
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("the test binary runs");
    let (stdout, stderr) =
        (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned());
    assert!(out.status.success(), "the traced program failed on {p} processes:\n{stdout}\n{stderr}");
    assert!(stdout.contains(&format!("steps={SYNCS}")), "{stdout}");
    (stdout, stderr)
}

fn check_trace(p: usize) {
    let path = scratch(&format!("trace-{p}.json"));
    run_traced(p, &[("BSP_TRACE", &path)]);
    let text = std::fs::read_to_string(&path).expect("the trace was written");
    let json = Parser::parse(&text).unwrap_or_else(|e| panic!("the trace is not JSON: {e}"));
    let Some(Json::Arr(events)) = json.get("traceEvents") else { panic!("no traceEvents array") };

    // One track per process, named.
    let mut names: Vec<(usize, String)> = events
        .iter()
        .filter(|e| e.str("ph") == "M" && e.str("name") == "process_name")
        .map(|e| (e.num("pid") as usize, e.get("args").expect("args").str("name").to_string()))
        .collect();
    names.sort();
    let want: Vec<(usize, String)> = (0..p).map(|q| (q, format!("bsp process {q}"))).collect();
    assert_eq!(names, want);
    let pids: std::collections::BTreeSet<usize> = events.iter().map(|e| e.num("pid") as usize).collect();
    assert_eq!(pids, (0..p).collect(), "events outside the process tracks");

    for q in 0..p {
        let slices: Vec<&Json> = events.iter().filter(|e| e.num("pid") as usize == q && e.str("ph") == "X").collect();
        let steps: Vec<&Json> = slices.iter().copied().filter(|e| e.str("cat") == "superstep").collect();
        // One slice per sync, then the end of the function; in order, back to back.
        assert_eq!(steps.len(), SYNCS + 1, "process {q}");
        for (k, s) in steps.iter().take(SYNCS).enumerate() {
            assert_eq!(s.str("name"), format!("superstep {k}"));
            assert_eq!(s.get("args").expect("args").num("superstep") as usize, k);
        }
        for w in steps.windows(2) {
            let end = w[0].num("ts") + w[0].num("dur");
            assert!(
                (w[1].num("ts") - end).abs() < 1e-6,
                "process {q}: supersteps not back to back: {:?} then {:?}",
                w[0],
                w[1]
            );
        }
        // Inside each superstep: compute, then sync spans, contiguous, covering it.
        for (k, s) in steps.iter().enumerate() {
            let (a, b) = (s.num("ts"), s.num("ts") + s.num("dur"));
            let label = k as f64; // the end of the function is superstep SYNCS
            let inner: Vec<&Json> = slices
                .iter()
                .copied()
                .filter(|e| e.str("cat") != "superstep" && e.get("args").expect("args").num("superstep") == label)
                .collect();
            assert!(!inner.is_empty(), "process {q}: an empty superstep slice {s:?}");
            assert_eq!(inner[0].str("name"), "compute", "process {q}");
            let mut t = a;
            for e in &inner {
                assert!(e.num("dur") >= 0.0);
                assert!((e.num("ts") - t).abs() < 1e-6, "process {q}: spans not contiguous at {e:?}");
                t = e.num("ts") + e.num("dur");
                assert!(["compute", "sync wait", "data movement"].contains(&e.str("name")));
            }
            assert!((t - b).abs() < 1e-6, "process {q}: the spans {inner:?} do not cover {s:?}");
        }
        // The figures of the known pattern.
        let h = |k: usize| steps[k].get("args").expect("args").num("h_bytes") as usize;
        assert_eq!(h(1), 8 * (p - 1), "process {q}: h of the all-to-all superstep");
        assert_eq!(h(2), 0);
        let gets = if q == 0 { 16 * (p - 1) } else { 16 };
        assert_eq!(h(3), if p == 1 { 0 } else { gets }, "process {q}: h of the get superstep");
        // Counters for h and bytes, one per superstep and a final zero.
        let counters = events.iter().filter(|e| e.num("pid") as usize == q && e.str("ph") == "C");
        assert_eq!(counters.filter(|e| e.str("name") == "h (bytes)").count(), SYNCS + 1);
    }

    let svg = std::fs::read_to_string(path.with_extension("svg")).expect("the SVG timeline was written");
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    for q in 0..p {
        assert!(svg.contains(&format!(">process {q}</text>")), "no row for process {q}");
    }
    assert_eq!(svg.matches('<').count(), svg.matches('>').count());
}

#[test]
fn the_trace_has_one_track_per_process_and_one_slice_per_sync() {
    for p in [1, 2, 4, 8] {
        check_trace(p);
    }
}

#[test]
fn the_summary_prints_every_superstep_with_predictions() {
    let machine = scratch("machine.json");
    std::fs::write(&machine, r#"{"p":4,"r_mflops":1000.0,"g_ns":10.0,"l_us":1.5,"g_flops":10}"#).expect("write");
    let (_, stderr) = run_traced(4, &[("BSP_TRACE_SUMMARY", Path::new("1")), ("BSP_MACHINE", &machine)]);
    assert!(stderr.contains(&format!("bsp: {SYNCS} supersteps on 4 processes")), "{stderr}");
    let rows: Vec<&str> =
        stderr.lines().filter(|l| l.split_whitespace().next().is_some_and(|w| w.parse::<usize>().is_ok())).collect();
    assert_eq!(rows.len(), SYNCS, "{stderr}");
    // Superstep 1: h = 3 words on every process; 12 puts of 8 bytes in all.
    let cols: Vec<&str> = rows[1].split_whitespace().collect();
    assert!(cols.windows(3).any(|w| w == ["3", "96", "12"]), "{}", rows[1]);
    assert!(stderr.contains("predicted = w + h*g + l with g = 10.00 ns"), "{stderr}");
    assert!(stderr.lines().any(|l| l.trim_start().starts_with("total")), "{stderr}");
}
