//! How a superstep's cost grows with p, on threads (oversubscribed beyond the cores, so the
//! figures measure the total work of a superstep, not its latency on a big machine) and on MPI.
//!
//! ```text
//! cargo bench --bench scale                         # threads: p = 2, 16, 64, 256, 1024
//! cargo bench --bench scale -- --procs 64,256 --runs 7
//! scripts/scale                                     # threads, then mpirun -n 2, 4, 8, 16; table and plot
//! ```
//! For each p: the empty superstep, and a superstep in which every process puts `k` one-word
//! values (k = 3 by default, `--k`) to processes drawn at random (a fixed seed per process), in
//! µs per superstep (median over `--runs` runs; within a run the mean over a number of
//! supersteps that shrinks as p grows), and the messages the engine sent per sync (process 0's,
//! from `StepStats::engine_messages`; none on threads). The ratio of the two times is the cost
//! of a little communication against the sync alone, which the cost model says should stay
//! small and flat as p grows (the median of the runs' ratios). Output is a Markdown table row
//! per p, each median with its range over the runs.
//!
//! `--distinct` makes the `k` destinations of a process's superstep `k` distinct processes other
//! than itself (drawn at random each superstep; at most p − 1 of them), each put writing its own
//! word (the sender, the superstep and the put) to element j of its destination; `--steps N`
//! sets the supersteps per run. `--only empty` or `--only puts` measures one kind alone and
//! prints `figure KIND P µs` per run instead of the table, for a launch per measurement
//! (`scripts/scale --launches N`).
//!
//! Built with `--features mpi` and started by `mpirun`, it measures at the number of ranks
//! (the exchange `BSP_MPI_EXCHANGE` asks for). `--data FILE` appends each row to FILE, and
//! `--svg FILE` plots every row of FILE (or of this run) as µs per superstep against p, one
//! line per engine and kind of superstep.

mod common;
use common::median;

use std::fmt::Write as _;
use std::time::Instant;

use bsp::Ctx;

#[derive(Clone, Debug)]
struct Opts {
    procs: Vec<usize>,
    runs: usize,
    k: usize,
    svg: Option<String>,
    data: Option<String>,
    /// Supersteps per run (default: fewer as p grows).
    steps: Option<usize>,
    /// Distinct destinations other than the sender, each put its own word.
    distinct: bool,
    /// Measure one kind of superstep alone (`empty` or `puts`).
    only: Option<Kind>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Empty,
    Puts,
}

/// One measured p: the engine (`threads`, or `mpi-` and the exchange), µs per empty superstep
/// and per superstep of puts, and messages per sync of each; each figure the median over the
/// runs, with the range over them (`lo`, `hi`: the empty superstep, the superstep of puts and
/// the runs' ratios).
#[derive(Clone, Debug)]
struct Row {
    engine: String,
    p: usize,
    empty: f64,
    puts: f64,
    ratio: f64,
    msgs_empty: f64,
    msgs_puts: f64,
    lo: [f64; 3],
    hi: [f64; 3],
}

impl Row {
    fn tsv(&self) -> String {
        let Row { engine, p, empty, puts, ratio, msgs_empty, msgs_puts, lo, hi } = self;
        format!(
            "{engine}\t{p}\t{empty}\t{puts}\t{ratio}\t{msgs_empty}\t{msgs_puts}\t{}\t{}\t{}\t{}\t{}\t{}",
            lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]
        )
    }

    /// A row of `tsv`; the ranges are optional (rows written before they were kept have none).
    fn from_tsv(line: &str) -> Option<Row> {
        let f: Vec<&str> = line.split('\t').collect();
        let num = |i: usize| f.get(i)?.parse::<f64>().ok();
        let (empty, puts, ratio) = (num(2)?, num(3)?, num(4)?);
        let or = |i: usize, v: f64| num(i).unwrap_or(v);
        Some(Row {
            engine: f.first()?.to_string(),
            p: f.get(1)?.parse().ok()?,
            empty,
            puts,
            ratio,
            msgs_empty: num(5)?,
            msgs_puts: num(6)?,
            lo: [or(7, empty), or(9, puts), or(11, ratio)],
            hi: [or(8, empty), or(10, puts), or(12, ratio)],
        })
    }

    fn markdown(&self) -> String {
        let msgs = |m: f64| if self.engine == "threads" { "–".to_string() } else { format!("{m:.1}") };
        let (lo, hi) = (self.lo, self.hi);
        format!(
            "| {} | {} | {:.2} [{:.2}–{:.2}] | {:.2} [{:.2}–{:.2}] | {:.2} [{:.2}–{:.2}] | {} | {} |",
            self.engine,
            self.p,
            self.empty,
            lo[0],
            hi[0],
            self.puts,
            lo[1],
            hi[1],
            self.ratio,
            lo[2],
            hi[2],
            msgs(self.msgs_empty),
            msgs(self.msgs_puts)
        )
    }
}

fn parse() -> Opts {
    let mut o = Opts {
        procs: vec![2, 16, 64, 256, 1024],
        runs: 5,
        k: 3,
        svg: None,
        data: None,
        steps: None,
        distinct: false,
        only: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |what: &str| args.next().unwrap_or_else(|| panic!("{a} needs {what}"));
        match a.as_str() {
            "--procs" => {
                // An empty list measures nothing (to plot the rows of `--data` alone).
                o.procs = value("a list like 2,16,64")
                    .split(',')
                    .filter(|s| !s.trim().is_empty())
                    .map(|s| s.trim().parse().expect("a count"))
                    .collect()
            }
            "--runs" => o.runs = value("a number").parse().expect("a number of runs"),
            "--k" => o.k = value("a number").parse().expect("a number of puts"),
            "--svg" => o.svg = Some(value("a file name")),
            "--steps" => o.steps = Some(value("a number").parse().expect("a number of supersteps")),
            "--distinct" => o.distinct = true,
            "--only" => {
                o.only = match value("empty or puts").as_str() {
                    "empty" => Some(Kind::Empty),
                    "puts" => Some(Kind::Puts),
                    other => panic!("--only {other:?}: empty or puts"),
                }
            }
            "--data" => o.data = Some(value("a file name")),
            "--bench" => {}
            other => panic!(
                "unknown option {other:?} (known: --procs, --runs, --k, --steps, --distinct, --only, --svg, --data)"
            ),
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

/// What process 0 measured, one figure per run: µs per empty superstep and per superstep of
/// `k` puts per process (alternating run by run, so that a disturbance hits both), and the
/// engine's messages per sync of each.
struct Figures {
    empty: Vec<f64>,
    puts: Vec<f64>,
    msgs_empty: f64,
    msgs_puts: f64,
}

fn measure(launch: bsp::Launch, o: &Opts) -> Figures {
    let (k, runs, distinct, only, steps) = (o.k, o.runs, o.distinct, o.only, o.steps);
    let out = launch
        .run(move |ctx: &mut Ctx| {
            let (pid, p) = (ctx.pid(), ctx.nprocs());
            let steps = steps.unwrap_or((20_000 / p).clamp(20, 2000));
            let x = ctx.register(vec![0u64; k.max(1)]);
            let mut seed = 0x9e37_79b9_7f4a_7c15 ^ (pid as u64 + 1).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            // With `distinct`: k distinct destinations other than `pid` (at most p − 1).
            let kd = if distinct { k.min(p - 1) } else { k };
            let mut dests = Vec::with_capacity(kd);
            let mut step = 0u64;
            let mut put_step = |ctx: &mut Ctx, seed: &mut u64| {
                if distinct {
                    dests.clear();
                    while dests.len() < kd {
                        let d = (next(seed) % p as u64) as usize;
                        if d != pid && !dests.contains(&d) {
                            dests.push(d);
                        }
                    }
                    for (j, &d) in dests.iter().enumerate() {
                        let word = (pid as u64) << 32 | step << 8 | j as u64;
                        ctx.put(d, &word, &x, j);
                    }
                } else {
                    for j in 0..k {
                        let dest = (next(seed) % p as u64) as usize;
                        ctx.put(dest, &[pid as u64], &x, j);
                    }
                }
                step += 1;
                ctx.sync();
            };
            for _ in 0..10 {
                ctx.sync();
                put_step(ctx, &mut seed);
            }
            let messages = |ctx: &Ctx| ctx.stats().total.engine_messages;
            let mut f = Figures { empty: Vec::new(), puts: Vec::new(), msgs_empty: 0.0, msgs_puts: 0.0 };
            let (mut me, mut mp) = (0, 0);
            for _ in 0..runs {
                if only != Some(Kind::Puts) {
                    ctx.sync();
                    let (t, m) = (Instant::now(), messages(ctx));
                    for _ in 0..steps {
                        ctx.sync();
                    }
                    f.empty.push(t.elapsed().as_secs_f64() * 1e6 / steps as f64);
                    me += messages(ctx) - m;
                }
                if only != Some(Kind::Empty) {
                    ctx.sync();
                    let (t, m) = (Instant::now(), messages(ctx));
                    for _ in 0..steps {
                        put_step(ctx, &mut seed);
                    }
                    f.puts.push(t.elapsed().as_secs_f64() * 1e6 / steps as f64);
                    mp += messages(ctx) - m;
                }
            }
            let per_sync = (runs * steps) as f64;
            (f.msgs_empty, f.msgs_puts) = (me as f64 / per_sync, mp as f64 / per_sync);
            f
        })
        .expect("the benchmark run");
    out.into_iter().next().expect("process 0's figures")
}

fn row(engine: String, p: usize, f: Figures) -> Row {
    let ratios: Vec<f64> = f.empty.iter().zip(&f.puts).map(|(e, q)| q / e).collect();
    let range = |v: &[f64]| v.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    let ((e0, e1), (p0, p1), (r0, r1)) = (range(&f.empty), range(&f.puts), range(&ratios));
    Row {
        engine,
        p,
        empty: median(f.empty),
        puts: median(f.puts),
        ratio: median(ratios),
        msgs_empty: f.msgs_empty,
        msgs_puts: f.msgs_puts,
        lo: [e0, p0, r0],
        hi: [e1, p1, r1],
    }
}

/// A log-log plot of µs per superstep against p: one line per engine and kind of superstep.
fn svg(rows: &[Row], k: usize) -> String {
    // The legend takes a column of `lw` on the right, beside the plot (not over its lines).
    let (w, h, m, lw) = (900.0, 460.0, 60.0, 180.0);
    let pmin = rows.iter().map(|r| r.p).min().unwrap_or(1).max(1) as f64;
    let pmax = rows.iter().map(|r| r.p).max().unwrap_or(2).max(2) as f64;
    let tmin = rows.iter().map(|r| r.empty.min(r.puts)).fold(f64::INFINITY, f64::min).max(1e-3);
    let tmax = rows.iter().map(|r| r.empty.max(r.puts)).fold(0.0, f64::max).max(tmin * 10.0);
    let (lt0, lt1) = (tmin.log10().floor(), tmax.log10().ceil());
    let x = |p: f64| m + (p.log2() - pmin.log2()) / (pmax.log2() - pmin.log2()).max(1e-9) * (w - 2.0 * m - lw);
    let y = |t: f64| h - m - (t.log10() - lt0) / (lt1 - lt0).max(1e-9) * (h - 2.0 * m);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="20" text-anchor="middle">µs per superstep against p (log-log): empty, and {k} one-word puts per process to random pids</text>"#,
        (w - lw) / 2.0
    );
    let mut ps: Vec<usize> = rows.iter().map(|r| r.p).collect();
    ps.sort_unstable();
    ps.dedup();
    for p in ps {
        let px = x(p as f64);
        let _ = writeln!(s, r##"<line x1="{px}" y1="{m}" x2="{px}" y2="{}" stroke="#ddd"/>"##, h - m);
        let _ = writeln!(s, r#"<text x="{px}" y="{}" text-anchor="middle">{p}</text>"#, h - m + 16.0);
    }
    let _ = writeln!(s, r#"<text x="{}" y="{}" text-anchor="middle">p</text>"#, (w - lw) / 2.0, h - m + 34.0);
    let mut e = lt0;
    while e <= lt1 {
        let py = y(10f64.powf(e));
        let _ = writeln!(s, r##"<line x1="{m}" y1="{py}" x2="{}" y2="{py}" stroke="#ddd"/>"##, w - m - lw);
        let _ = writeln!(s, r#"<text x="{}" y="{}" text-anchor="end">{}</text>"#, m - 6.0, py + 4.0, 10f64.powf(e));
        e += 1.0;
    }
    let mut engines: Vec<&str> = Vec::new();
    for r in rows {
        if !engines.contains(&r.engine.as_str()) {
            engines.push(&r.engine);
        }
    }
    let colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"];
    let mut line = 0;
    for (i, engine) in engines.iter().enumerate() {
        let mut series: Vec<&Row> = rows.iter().filter(|r| r.engine == *engine).collect();
        series.sort_by_key(|r| r.p);
        let colour = colours[i % colours.len()];
        for (kind, dash, pick) in [("empty", "6,4", 0), ("puts", "", 1)] {
            let pts: Vec<String> = series
                .iter()
                .map(|r| format!("{:.1},{:.1}", x(r.p as f64), y(if pick == 0 { r.empty } else { r.puts })))
                .collect();
            let _ = writeln!(
                s,
                r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2" stroke-dasharray="{dash}"/>"#,
                pts.join(" ")
            );
            line += 1;
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{}" fill="{colour}">{engine}: {kind}{}</text>"#,
                w - lw,
                m + 14.0 * line as f64,
                if dash.is_empty() { " (solid)" } else { " (dashed)" }
            );
        }
    }
    let _ = writeln!(s, "</svg>");
    s
}

fn header(k: usize) {
    println!(
        "| engine | p | empty superstep (µs) [min–max] | {k} one-word puts per process (µs) [min–max] | ratio [min–max] | messages per empty sync | messages per sync of puts |"
    );
    println!("|---|---|---|---|---|---|---|");
}

/// The figures of an `--only` launch, one line per run.
fn figures(p: usize, f: &Figures) {
    for (kind, v) in [("empty", &f.empty), ("puts", &f.puts)] {
        for t in v {
            println!("figure {kind} {p} {t}");
        }
    }
}

fn main() {
    let o = parse();
    let mut rows = Vec::new();
    if o.only.is_none() {
        header(o.k);
    }
    if std::env::var_os("OMPI_COMM_WORLD_SIZE").is_some() {
        // Under mpirun: one p, the number of ranks (only process 0 returns from the run).
        let exchange = std::env::var("BSP_MPI_EXCHANGE").unwrap_or_else(|_| "auto".to_string());
        let launch = bsp::Launch::new();
        let p = launch.nprocs().expect("the number of ranks");
        let f = measure(launch, &o);
        if o.only.is_some() {
            return figures(p, &f);
        }
        rows.push(row(format!("mpi-{exchange}"), p, f));
    } else {
        for &p in &o.procs {
            let f = measure(bsp::Launch::new().procs(p), &o);
            if o.only.is_some() {
                figures(p, &f);
                continue;
            }
            rows.push(row("threads".to_string(), p, f));
        }
        if o.only.is_some() {
            return;
        }
    }
    for r in &rows {
        println!("{}", r.markdown());
    }
    if let Some(path) = &o.data {
        let mut text = std::fs::read_to_string(path).unwrap_or_default();
        for r in &rows {
            text.push_str(&r.tsv());
            text.push('\n');
        }
        std::fs::write(path, &text).unwrap_or_else(|e| panic!("cannot write {path}: {e}"));
        rows = text.lines().filter_map(Row::from_tsv).collect();
    }
    if let Some(path) = &o.svg {
        std::fs::write(path, svg(&rows, o.k)).unwrap_or_else(|e| panic!("cannot write {path}: {e}"));
        println!("\nplot written to {path}");
    }
}
