//! `bspbench`: measures the BSP machine parameters p, r, g and l, by the method of
//! BSPedupack's `bspbench` (Bisseling, *Parallel Scientific Computation*, §1.5–1.6).
//!
//! - **r**, the computing rate: each process times `NITERS` pairs of DAXPY-like loops
//!   (`y += αx; z -= βx`, 4n flops) of length n = 1, 2, 4, …, MAXN; process 0 collects the
//!   times with `put` and takes the average rate over the processes; r is the rate at MAXN.
//! - **g** and **l**: for h = 0, …, MAXH every process sends h single-`f64` puts, spread
//!   cyclically over the other p − 1 processes (each word to its own destination index), and
//!   the time of `NITERS` such h-relations (each ended by a sync) is measured. T(h), in flops
//!   (time × r), is fitted by least squares to g·h + l over h = 0..p and over h = p..MAXH; the
//!   second fit is the bottom line.
//! - **Until stable**: the h-relations are measured in rounds, each h keeping its least time
//!   (other work on the machine only adds time), until the fit settles: g within 5% of the
//!   previous round's and R² ≥ 0.9, or `--rounds K` rounds (8 by default). A fit that did not
//!   settle is a warning on stderr, and `--json PATH` refuses to write it unless `--force`.
//!
//! ```text
//! cargo run --release --example bspbench -- [-p P] [--maxh H] [--maxn N] [--niters I] [--rounds K] [--repeat R] [--json [PATH]] [--force] [--quiet]
//! ```
//! p defaults to `BSP_NPROCS`, else the number of cores. The bottom line is printed in the form
//! of the original (`p= 2, r= 5123.456 Mflop/s, g= 61.2, l= 1690.3`), followed by g and l in
//! time units; `--json` prints only the figures, as one JSON object, and `--json PATH` writes
//! that object to the file PATH instead (what `bsp::stats::Machine::load` reads for cost
//! predictions: `p`, `r_mflops`, `g_ns`, `l_us`).

use std::fmt::Write as _;
use std::hint::black_box;
use std::process::ExitCode;

use bsp::{Ctx, Launch};

const MEGA: f64 = 1e6;

/// What to measure.
#[derive(Clone, Copy, Debug)]
struct Config {
    procs: Option<usize>,
    /// Largest h of the h-relations.
    maxh: usize,
    /// Largest DAXPY length (a power of two).
    maxn: usize,
    /// Repetitions per measurement.
    niters: usize,
    json: bool,
    /// Where `--json PATH` writes the figures (stdout without a path).
    json_path: Option<&'static str>,
    /// Print only the summary, not the per-n and per-h lines.
    quiet: bool,
    /// Whole measurements to run; the figures reported are their medians.
    repeat: usize,
    /// The most rounds of h-relations per measurement (fewer when the fit settles).
    rounds: usize,
    /// Save the figures with `--json PATH` even if the fit is poor.
    force: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            procs: None,
            maxh: 256,
            maxn: 1024,
            niters: 100,
            json: false,
            json_path: None,
            quiet: false,
            repeat: 1,
            rounds: 8,
            force: false,
        }
    }
}

const USAGE: &str =
    "usage: bspbench [-p P] [--maxh H] [--maxn N] [--niters I] [--rounds K] [--repeat R] [--json [PATH]] [--force] [--quiet]\n\
     measures r (Mflop/s), g (flops per word) and l (flops) of this BSP computer, as BSPedupack's bspbench;\n\
     the h-relations are measured in rounds (at most K, default 8) until the fit of g and l is stable;\n\
     with --repeat R, runs the whole measurement R times and reports the medians;\n\
     --json prints the figures as JSON, --json PATH writes them to PATH (for cost predictions),\n\
     unless the fit is poor (R^2 below 0.9, or not stable): --force writes it anyway";

fn parse_args() -> Result<Config, String> {
    let mut c = Config::default();
    let mut args = std::env::args().skip(1).peekable();
    while let Some(a) = args.next() {
        let mut number = |name: &str| -> Result<usize, String> {
            let v = args.next().ok_or_else(|| format!("`{name}` needs a value\n{USAGE}"))?;
            v.parse().map_err(|_| format!("`{name} {v}`: expected a non-negative integer\n{USAGE}"))
        };
        match a.as_str() {
            "-p" | "--procs" => c.procs = Some(number(&a)?),
            "--maxh" => c.maxh = number(&a)?,
            "--maxn" => c.maxn = number(&a)?,
            "--niters" => c.niters = number(&a)?,
            "--repeat" => c.repeat = number(&a)?,
            "--rounds" => c.rounds = number(&a)?,
            "--force" => c.force = true,
            "--json" => {
                c.json = true;
                if let Some(path) = args.next_if(|v| !v.starts_with('-')) {
                    // Lives until the end of the program, like the arguments.
                    c.json_path = Some(Box::leak(path.into_boxed_str()));
                }
            }
            "--quiet" => c.quiet = true,
            "-h" | "--help" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    if c.maxn == 0 || c.niters == 0 || c.repeat == 0 || c.rounds == 0 {
        return Err(format!("`--maxn`, `--niters`, `--rounds` and `--repeat` must be positive\n{USAGE}"));
    }
    Ok(c)
}

/// The figures process 0 found.
#[derive(Debug, Default)]
struct Figures {
    p: usize,
    /// Flop/s.
    r: f64,
    /// Seconds per h-relation, h = 0..=maxh.
    secs: Vec<f64>,
    /// Fit over h = 0..=p: (g, l) in flops.
    fit_small: (f64, f64),
    /// Fit over h = p..=maxh: (g, l) in flops.
    fit: (f64, f64),
    /// Coefficient of determination of that fit: how linear T(h) is in h (1 = a line).
    r2: f64,
    /// Rounds of h-relations measured.
    rounds: usize,
    /// Whether the fit settled (g within 5% of the previous round's, R² ≥ `R2_MIN`) before the
    /// last round allowed.
    stable: bool,
}

/// The least R² of a fit that is worth saving: below it T(h) is not a line, and g and l
/// describe the noise of a busy machine more than the machine.
const R2_MIN: f64 = 0.9;

/// The least-squares line T(h) = g·h + l through the points (h, t[h]), h0 ≤ h ≤ h1: (g, l).
fn least_squares(h0: usize, h1: usize, t: &[f64]) -> (f64, f64) {
    let pts = &t[h0..=h1];
    let n = pts.len() as f64;
    if pts.len() < 2 {
        return (0.0, pts.first().copied().unwrap_or(0.0));
    }
    // Centred sums: the same normal equations, solved without cancellation.
    let mean_h = (h0 + h1) as f64 / 2.0;
    let mean_t = pts.iter().sum::<f64>() / n;
    let (mut sht, mut shh) = (0.0, 0.0);
    for (i, &ti) in pts.iter().enumerate() {
        let dh = (h0 + i) as f64 - mean_h;
        sht += dh * (ti - mean_t);
        shh += dh * dh;
    }
    let g = sht / shh;
    (g, mean_t - g * mean_h)
}

/// R² of the line (g, l) through the points (h, t[h]), h0 ≤ h ≤ h1.
fn r_squared(h0: usize, h1: usize, t: &[f64], (g, l): (f64, f64)) -> f64 {
    let pts = &t[h0..=h1];
    let mean = pts.iter().sum::<f64>() / pts.len() as f64;
    let (mut res, mut tot) = (0.0, 0.0);
    for (i, &ti) in pts.iter().enumerate() {
        let fit = g * (h0 + i) as f64 + l;
        res += (ti - fit) * (ti - fit);
        tot += (ti - mean) * (ti - mean);
    }
    if tot > 0.0 {
        1.0 - res / tot
    } else {
        1.0
    }
}

/// Time of `niters` pairs of DAXPYs of length n, in seconds.
fn daxpy_time(ctx: &Ctx, n: usize, niters: usize, x: &mut [f64], y: &mut [f64], z: &mut [f64]) -> f64 {
    let (alpha, beta) = (1.0 / 3.0, 4.0 / 9.0);
    for i in 0..n {
        (x[i], y[i], z[i]) = (i as f64, i as f64, i as f64);
    }
    let (x, y, z) = (&x[..n], &mut y[..n], &mut z[..n]);
    let t0 = ctx.time();
    for _ in 0..niters {
        for (yi, xi) in y.iter_mut().zip(x) {
            *yi += alpha * xi;
        }
        for (zi, xi) in z.iter_mut().zip(x) {
            *zi -= beta * xi;
        }
        // Keep each iteration's stores (the compiler may not fuse or drop iterations).
        black_box(&mut *y);
        black_box(&mut *z);
    }
    ctx.time() - t0
}

fn bspbench(ctx: &mut Ctx, cfg: Config) -> Option<Figures> {
    let (p, s) = (ctx.nprocs(), ctx.pid());
    let (maxh, maxn, niters) = (cfg.maxh, cfg.maxn, cfg.niters);
    let verbose = s == 0 && !cfg.quiet && !cfg.json;
    let (times, dest) = ctx.register((vec![0.0f64; p], vec![0.0f64; 2 * maxh + p]));

    // r: the DAXPY rate.
    let (mut x, mut y, mut z) = (vec![0.0f64; maxn], vec![0.0f64; maxn], vec![0.0f64; maxn]);
    let mut r = 0.0;
    let mut n = 1;
    while n <= maxn {
        let time = daxpy_time(ctx, n, niters, &mut x, &mut y, &mut z);
        ctx.put(0, &time, &times, s);
        ctx.sync();
        if s == 0 {
            let t = times.local(ctx);
            let (min, max) = t.iter().fold((f64::MAX, 0.0f64), |(lo, hi), &v| (lo.min(v), hi.max(v)));
            if min > 0.0 {
                let nflops = (4 * niters * n) as f64;
                r = t.iter().map(|&ts| nflops / ts).sum::<f64>() / p as f64;
                if verbose {
                    println!(
                        "n= {n:5} min= {:7.3} max= {:7.3} av= {:7.3} Mflop/s  fool={:7.1}",
                        nflops / (max * MEGA),
                        nflops / (min * MEGA),
                        r / MEGA,
                        y[n - 1] + z[n - 1]
                    );
                }
            } else if verbose {
                println!("minimum time is 0");
            }
        }
        n *= 2;
    }
    // r is the rate at length MAXN.

    // g and l: h-relations of single-word puts, measured in rounds. Each h keeps its least time
    // over the rounds (other work on the machine only ever adds time), and the rounds go on until
    // the fit over those times is stable: g within 5% of the previous round's and R² at least
    // R2_MIN, or `--rounds` rounds.
    let mut secs = vec![f64::INFINITY; maxh + 1];
    let mut dest_proc = vec![0usize; maxh];
    let mut dest_index = vec![0usize; maxh];
    let mut src = vec![0.0f64; maxh];
    for i in 0..maxh {
        src[i] = i as f64;
        if p == 1 {
            (dest_proc[i], dest_index[i]) = (0, i);
        } else {
            // One of the p - 1 others, cyclically; the index is in this process's part.
            dest_proc[i] = (s + 1 + i % (p - 1)) % p;
            dest_index[i] = s + (i / (p - 1)) * p;
        }
    }
    let (mut rounds, mut last_g, mut stable) = (0, None::<f64>, false);
    while !stable && rounds < cfg.rounds {
        rounds += 1;
        for (h, best) in secs.iter_mut().enumerate() {
            ctx.sync();
            let t0 = ctx.time();
            for _ in 0..niters {
                for i in 0..h {
                    ctx.put(dest_proc[i], &src[i], &dest, dest_index[i]);
                }
                ctx.sync();
            }
            let time = ctx.time() - t0;
            *best = best.min(time / niters as f64);
        }
        // Process 0's times decide, for everyone.
        let done = s == 0 && {
            let t: Vec<f64> = secs.iter().map(|&x| x * r).collect();
            let fit = least_squares(p.min(maxh), maxh, &t);
            let r2 = r_squared(p.min(maxh), maxh, &t, fit);
            let settled = last_g.is_some_and(|g| (fit.0 - g).abs() <= 0.05 * g.abs());
            last_g = Some(fit.0);
            settled && r2 >= R2_MIN
        };
        stable = ctx.allreduce_one(u8::from(done), bsp::ops::max) == 1;
    }
    ctx.unregister((dest, times));
    (s == 0).then(|| {
        let t: Vec<f64> = secs.iter().map(|&x| x * r).collect();
        if verbose {
            for h in 0..=maxh {
                println!("Time of {h:5}-relation = {:.2} microsec = {:8.0} flops", secs[h] * MEGA, t[h]);
            }
        }
        let fit_small = least_squares(0, p.min(maxh), &t);
        let fit = least_squares(p.min(maxh), maxh, &t);
        let r2 = r_squared(p.min(maxh), maxh, &t, fit);
        Figures { p, r, secs, fit_small, fit, r2, rounds, stable }
    })
}

fn print_text(f: &Figures, maxh: usize) {
    let p = f.p;
    println!("size of double = {} bytes", std::mem::size_of::<f64>());
    println!("Range h=0 to p   : g= {:.1}, l= {:.1}", f.fit_small.0, f.fit_small.1);
    println!("Range h=p to {maxh}: g= {:.1}, l= {:.1} (R^2 = {:.4})", f.fit.0, f.fit.1, f.r2);
    println!("The bottom line for this BSP computer is:");
    println!("p= {p}, r= {:.3} Mflop/s, g= {:.1}, l= {:.1}", f.r / MEGA, f.fit.0, f.fit.1);
    println!("In time units: g= {:.2} ns per word, l= {:.3} us", f.fit.0 / f.r * 1e9, f.fit.1 / f.r * 1e6);
}

fn print_json(f: &Figures, cfg: Config) {
    let mut s = String::new();
    let secs: Vec<String> = f.secs.iter().map(|v| format!("{:.6e}", v)).collect();
    let _ = write!(
        s,
        "{{\"p\":{},\"maxh\":{},\"maxn\":{},\"niters\":{},\"repeat\":{},\"r_mflops\":{:.3},\"g_flops\":{:.3},\"l_flops\":{:.3},\
         \"g_ns\":{:.4},\"l_us\":{:.5},\"g0_flops\":{:.3},\"l0_flops\":{:.3},\"r2\":{:.5},\"rounds\":{},\"stable\":{},\"sync_us\":{:.5},\"t_secs\":[{}]}}",
        f.p,
        cfg.maxh,
        cfg.maxn,
        cfg.niters,
        cfg.repeat,
        f.r / MEGA,
        f.fit.0,
        f.fit.1,
        f.fit.0 / f.r * 1e9,
        f.fit.1 / f.r * 1e6,
        f.fit_small.0,
        f.fit_small.1,
        f.r2,
        f.rounds,
        f.stable,
        f.secs[0] * 1e6,
        secs.join(",")
    );
    match cfg.json_path {
        None => println!("{s}"),
        Some(path) if !f.trustworthy() && !cfg.force => {
            eprintln!(
                "error: not writing {path}: {}; measure again on an idle machine (or with a larger --niters or --maxh), or write it anyway with --force",
                f.doubt().unwrap_or_default()
            );
            std::process::exit(1);
        }
        Some(path) => match std::fs::write(path, format!("{s}\n")) {
            Ok(()) => println!(
                "wrote {path}: p= {}, r= {:.3} Mflop/s, g= {:.2} ns per word, l= {:.3} us",
                f.p,
                f.r / MEGA,
                f.fit.0 / f.r * 1e9,
                f.fit.1 / f.r * 1e6
            ),
            Err(e) => {
                eprintln!("error: cannot write {path}: {e}");
                std::process::exit(1);
            }
        },
    }
}

impl Figures {
    /// Whether the fit is good enough to predict with.
    fn trustworthy(&self) -> bool {
        self.doubt().is_none()
    }

    /// What is wrong with the fit, if anything.
    fn doubt(&self) -> Option<String> {
        if self.r2 < R2_MIN {
            Some(format!(
                "the fit of T(h) = g·h + l is poor (R^2 = {:.3}, below {R2_MIN}): the times are not a line in h, and g and l say more about other work on the machine than about the machine",
                self.r2
            ))
        } else if !self.stable {
            Some(format!(
                "the fit did not settle in {} rounds (g moved by more than 5% from round to round)",
                self.rounds
            ))
        } else {
            None
        }
    }
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

/// The figures of several runs, field by field: their medians. g and l in time units are the
/// medians of each run's own g/r and l/r; in flops they are those times at the median rate.
fn medians(runs: &[Figures]) -> Figures {
    let m = |f: &dyn Fn(&Figures) -> f64| median(runs.iter().map(f).collect());
    let r = m(&|f| f.r);
    let (g_secs, l_secs) = (m(&|f| f.fit.0 / f.r), m(&|f| f.fit.1 / f.r));
    Figures {
        p: runs[0].p,
        r,
        secs: (0..runs[0].secs.len()).map(|h| m(&|f| f.secs[h])).collect(),
        fit_small: (m(&|f| f.fit_small.0), m(&|f| f.fit_small.1)),
        fit: (g_secs * r, l_secs * r),
        r2: m(&|f| f.r2),
        rounds: runs.iter().map(|f| f.rounds).max().unwrap_or(0),
        stable: runs.iter().all(|f| f.stable),
    }
}

fn main() -> ExitCode {
    let cfg = match parse_args() {
        Ok(c) => c,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::from(2);
        }
    };
    let mut runs = Vec::new();
    for i in 0..cfg.repeat {
        let launch = match cfg.procs {
            Some(p) => Launch::new().procs(p),
            None => Launch::new(),
        };
        let run_cfg = Config { quiet: cfg.quiet || i > 0, ..cfg };
        let figures = bsp::exit_on_error(launch.run(|ctx| bspbench(ctx, run_cfg)));
        // Process 0 reports the figures; on the MPI engine the other ranks have none to print.
        let Some(f) = figures.into_iter().flatten().next() else {
            return ExitCode::SUCCESS;
        };
        if f.r <= 0.0 {
            eprintln!("error: the DAXPY timings were 0; increase --niters or --maxn");
            return ExitCode::FAILURE;
        }
        if cfg.repeat > 1 && !cfg.json {
            println!(
                "run {}: p= {}, r= {:.3} Mflop/s, g= {:.1}, l= {:.1} ({:.2} ns per word, {:.3} us)",
                i + 1,
                f.p,
                f.r / MEGA,
                f.fit.0,
                f.fit.1,
                f.fit.0 / f.r * 1e9,
                f.fit.1 / f.r * 1e6
            );
        }
        runs.push(f);
    }
    let f = if runs.len() == 1 { runs.pop().expect("one run") } else { medians(&runs) };
    if let Some(doubt) = f.doubt() {
        eprintln!("warning: {doubt}");
    }
    if cfg.json {
        print_json(&f, cfg);
    } else {
        if cfg.repeat > 1 {
            println!("Medians of {} runs:", cfg.repeat);
        }
        print_text(&f, cfg.maxh);
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::least_squares;

    #[test]
    fn fits_a_line_exactly() {
        let t: Vec<f64> = (0..=10).map(|h| 3.0 * h as f64 + 7.0).collect();
        let (g, l) = least_squares(2, 10, &t);
        assert!((g - 3.0).abs() < 1e-12 && (l - 7.0).abs() < 1e-12);
    }
}
