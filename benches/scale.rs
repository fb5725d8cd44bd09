//! How a superstep's cost grows with p on the threads engine (oversubscribed beyond the cores,
//! so the figures measure the total work of a superstep, not its latency on a big machine).
//!
//! ```text
//! cargo bench --bench scale                         # p = 2, 16, 64, 256, 1024
//! cargo bench --bench scale -- --procs 64,256 --runs 7
//! cargo bench --bench scale -- --svg scale.svg      # also plot time per superstep against p
//! ```
//! For each p: the empty superstep, and a superstep in which every process puts `k` one-word
//! values (k = 3 by default, `--k`) to processes drawn at random (a fixed seed per process), in
//! µs per superstep (median over `--runs` runs; within a run the mean over a number of
//! supersteps that shrinks as p grows). The ratio of the two is the cost of a little
//! communication against the sync alone, the figure the cost model says should stay small and
//! flat as p grows. Output is a Markdown table.

use std::fmt::Write as _;
use std::time::Instant;

use bsp::Ctx;

#[derive(Clone, Debug)]
struct Opts {
    procs: Vec<usize>,
    runs: usize,
    k: usize,
    svg: Option<String>,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn parse() -> Opts {
    let mut o = Opts { procs: vec![2, 16, 64, 256, 1024], runs: 5, k: 3, svg: None };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |what: &str| args.next().unwrap_or_else(|| panic!("{a} needs {what}"));
        match a.as_str() {
            "--procs" => {
                o.procs = value("a list like 2,16,64").split(',').map(|s| s.trim().parse().expect("a count")).collect()
            }
            "--runs" => o.runs = value("a number").parse().expect("a number of runs"),
            "--k" => o.k = value("a number").parse().expect("a number of puts"),
            "--svg" => o.svg = Some(value("a file name")),
            "--bench" => {}
            other => panic!("unknown option {other:?} (known: --procs, --runs, --k, --svg)"),
        }
    }
    o
}

/// A small deterministic generator (xorshift64*), so that every run draws the same pids.
fn next(state: &mut u64) -> u64 {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    state.wrapping_mul(0x2545_f491_4f6c_dd1d)
}

/// µs per superstep on process 0, one figure per run: empty supersteps, then supersteps of `k`
/// puts per process, alternating run by run so that a disturbance hits both.
fn measure(p: usize, k: usize, runs: usize) -> (Vec<f64>, Vec<f64>) {
    let steps = (20_000 / p).clamp(20, 2000);
    let out = bsp::run(p, |ctx: &mut Ctx| {
        let pid = ctx.pid();
        let x = ctx.register(vec![0u64; k.max(1)]);
        let mut seed = 0x9e37_79b9_7f4a_7c15 ^ (pid as u64 + 1).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        let put_step = |ctx: &mut Ctx, seed: &mut u64| {
            for j in 0..k {
                let dest = (next(seed) % p as u64) as usize;
                ctx.put(dest, &[pid as u64], &x, j);
            }
            ctx.sync();
        };
        for _ in 0..10 {
            ctx.sync();
            put_step(ctx, &mut seed);
        }
        let (mut empty, mut puts) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            ctx.sync();
            let t = Instant::now();
            for _ in 0..steps {
                ctx.sync();
            }
            empty.push(t.elapsed().as_secs_f64() * 1e6 / steps as f64);
            ctx.sync();
            let t = Instant::now();
            for _ in 0..steps {
                put_step(ctx, &mut seed);
            }
            puts.push(t.elapsed().as_secs_f64() * 1e6 / steps as f64);
        }
        (empty, puts)
    })
    .expect("the benchmark run");
    out.into_iter().next().expect("process 0's figures")
}

/// A log-log plot of µs per superstep against p, one line per kind of superstep.
fn svg(rows: &[(usize, f64, f64)], k: usize) -> String {
    let (w, h, m) = (640.0, 420.0, 60.0);
    let (pmin, pmax) = (rows[0].0 as f64, rows[rows.len() - 1].0 as f64);
    let tmin = rows.iter().map(|r| r.1.min(r.2)).fold(f64::INFINITY, f64::min);
    let tmax = rows.iter().map(|r| r.1.max(r.2)).fold(0.0, f64::max);
    let (lt0, lt1) = (tmin.log10().floor(), tmax.log10().ceil());
    let x = |p: f64| m + (p.log2() - pmin.log2()) / (pmax.log2() - pmin.log2()).max(1e-9) * (w - 2.0 * m);
    let y = |t: f64| h - m - (t.log10() - lt0) / (lt1 - lt0).max(1e-9) * (h - 2.0 * m);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="20" text-anchor="middle">µs per superstep against p (threads engine, log-log)</text>"#,
        w / 2.0
    );
    for &(p, _, _) in rows {
        let px = x(p as f64);
        let _ = writeln!(s, r##"<line x1="{px}" y1="{}" x2="{px}" y2="{}" stroke="#ddd"/>"##, m, h - m);
        let _ = writeln!(s, r#"<text x="{px}" y="{}" text-anchor="middle">{p}</text>"#, h - m + 16.0);
    }
    let mut e = lt0;
    while e <= lt1 {
        let py = y(10f64.powf(e));
        let _ = writeln!(s, r##"<line x1="{m}" y1="{py}" x2="{}" y2="{py}" stroke="#ddd"/>"##, w - m);
        let _ = writeln!(s, r#"<text x="{}" y="{}" text-anchor="end">{}</text>"#, m - 6.0, py + 4.0, 10f64.powf(e));
        e += 1.0;
    }
    for (i, (label, colour)) in [("empty superstep", "#1f77b4"), ("k one-word puts", "#d62728")].iter().enumerate() {
        let pts: Vec<String> =
            rows.iter().map(|r| format!("{:.1},{:.1}", x(r.0 as f64), y(if i == 0 { r.1 } else { r.2 }))).collect();
        let _ = writeln!(s, r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2"/>"#, pts.join(" "));
        let label = if i == 1 { format!("{k} one-word puts per process") } else { label.to_string() };
        let _ =
            writeln!(s, r#"<text x="{}" y="{}" fill="{colour}">{label}</text>"#, m + 10.0, m + 16.0 * (i as f64 + 1.0));
    }
    let _ = writeln!(s, "</svg>");
    s
}

fn main() {
    let o = parse();
    println!("| p | empty superstep (µs) | {} one-word puts per process (µs) | ratio |", o.k);
    println!("|---|---|---|---|");
    let mut rows = Vec::new();
    for &p in &o.procs {
        let (empty, puts) = measure(p, o.k, o.runs);
        let ratios: Vec<f64> = empty.iter().zip(&puts).map(|(e, q)| q / e).collect();
        let (e, q) = (median(empty), median(puts));
        println!("| {p} | {e:.2} | {q:.2} | {:.2} |", median(ratios));
        rows.push((p, e, q));
    }
    if let Some(path) = &o.svg {
        std::fs::write(path, svg(&rows, o.k)).unwrap_or_else(|e| panic!("cannot write {path}: {e}"));
        println!("\nplot written to {path}");
    }
}
