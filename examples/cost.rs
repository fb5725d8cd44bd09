//! Predicted against measured BSP cost, superstep by superstep, for two classic programs: an
//! inner product and a dense matrix-vector product.
//!
//! The machine's g and l come from `bspbench`; each program reads its own statistics
//! (`ctx.stats()`) after every sync, the processes gather them on process 0, and process 0
//! prints, for every superstep, the BSP prediction `w + h·g + l` — with w and h the largest
//! among the processes — beside the measured time (the longest among the processes).
//!
//! ```text
//! cargo run --release --example bspbench -- --json machine.json
//! BSP_NPROCS=2 cargo run --release --example cost -- machine.json [--n N] [--reps R]
//! ```
//! w is measured, not predicted: the comparison is about the communication and the
//! synchronisation, which is what g and l model. Without a machine file (argument or
//! `BSP_MACHINE`) it prints only h per superstep, which is the same on every run and engine.

use std::process::ExitCode;
use std::time::Duration;

use bsp::stats::{Machine, StepStats};
use bsp::{Ctx, Launch};

const USAGE: &str = "usage: cost [MACHINE.json] [--n N] [--reps R]\n\
    MACHINE.json (or BSP_MACHINE): written by `cargo run --release --example bspbench -- --json MACHINE.json`;\n\
    without it, only h per superstep is printed";

/// The figures of each superstep of this process, copied after every sync.
#[derive(Default)]
struct Log(Vec<StepStats>);

impl Log {
    fn sync(&mut self, ctx: &mut Ctx) {
        ctx.sync();
        self.0.push(ctx.stats().last);
    }

    /// `ctx.register`, which is a sync, logged like one.
    fn register<D: bsp::Registration>(&mut self, ctx: &mut Ctx, data: D) -> D::Regs {
        let regs = ctx.register(data);
        self.0.push(ctx.stats().last);
        regs
    }

    /// `ctx.unregister`, which is a sync, logged like one.
    fn unregister<R: bsp::Unregistration>(&mut self, ctx: &mut Ctx, regs: R) -> R::Data {
        let data = ctx.unregister(regs);
        self.0.push(ctx.stats().last);
        data
    }
}

/// The inner product of x_i = i and y_i = 2 (i < n), block-distributed: each process sums
/// its part (w = 2n/p flops), puts its partial sum into everyone's array (h = p − 1 words),
/// and adds the p partial sums.
fn inner_product(ctx: &mut Ctx, n: usize, log: &mut Log) -> f64 {
    let (s, p) = (ctx.pid(), ctx.nprocs());
    let (lo, hi) = (s * n / p, (s + 1) * n / p);
    let x: Vec<f64> = (lo..hi).map(|i| i as f64).collect();
    let y = vec![2.0f64; hi - lo];
    let partial = log.register(ctx, vec![0.0f64; p]);
    let local: f64 = x.iter().zip(&y).map(|(a, b)| a * b).sum();
    for q in 0..p {
        ctx.put(q, &local, &partial, s);
    }
    log.sync(ctx);
    let alpha = partial.local(ctx).iter().sum();
    log.unregister(ctx, partial);
    alpha
}

/// y = A·x for the n×n matrix a_ij = (i + j) mod 7, x_j = 1, rows and x block-distributed:
/// every process puts its block of x into everyone's copy (h = (p − 1)·n/p words, an
/// all-gather), then multiplies its rows (w = 2n²/p flops) and checks them.
fn matvec(ctx: &mut Ctx, n: usize, log: &mut Log) {
    let (s, p) = (ctx.pid(), ctx.nprocs());
    let (lo, hi) = (s * n / p, (s + 1) * n / p);
    let a: Vec<f64> = (lo..hi).flat_map(|i| (0..n).map(move |j| ((i + j) % 7) as f64)).collect();
    let x_mine = vec![1.0f64; hi - lo];
    let x = log.register(ctx, vec![0.0f64; n]);
    for q in 0..p {
        ctx.put(q, &x_mine, &x, lo);
    }
    log.sync(ctx);
    let xs = x.local(ctx);
    let y: Vec<f64> = a.chunks_exact(n).map(|row| row.iter().zip(xs).map(|(a, b)| a * b).sum()).collect();
    // Check the rows against their sums computed directly.
    for (i, &yi) in (lo..hi).zip(&y) {
        let want: f64 = (0..n).map(|j| ((i + j) % 7) as f64).sum();
        if yi != want {
            ctx.abort(format!("row {i} of A·x is {yi}, expected {want}"));
        }
    }
    log.unregister(ctx, x);
}

/// Gathers every process's log on process 0 (w and h, and the superstep's time, in ns and
/// bytes) and prints the table there: h per superstep, and with a machine, w, the prediction
/// and the measured time. Collective.
fn report(ctx: &mut Ctx, name: &str, log: &Log, machine: Option<&Machine>) {
    let (s, p, k) = (ctx.pid(), ctx.nprocs(), log.0.len());
    let all = ctx.register(vec![0u64; 3 * k * p]);
    let mine: Vec<u64> = log
        .0
        .iter()
        .flat_map(|st| [st.compute.as_nanos() as u64, st.h_bytes as u64, st.time().as_nanos() as u64])
        .collect();
    ctx.put(0, &mine, &all, 3 * k * s);
    ctx.sync();
    if s == 0 {
        let figures = all.local(ctx);
        println!("{name} on {p} processes:");
        match machine {
            Some(_) => println!(
                "{:>5} {:>8} {:>12} {:>12} {:>12} {:>6}",
                "step", "h words", "w max", "predicted", "measured", "ratio"
            ),
            None => println!("{:>5} {:>8}", "step", "h words"),
        }
        let (mut predicted_total, mut measured_total) = (Duration::ZERO, Duration::ZERO);
        for step in 0..k {
            let at = |q: usize, f: usize| figures[3 * (q * k + step) + f];
            let h = (0..p).map(|q| at(q, 1)).max().unwrap_or(0) as usize;
            let words = h.div_ceil(bsp::stats::WORD);
            let Some(m) = machine else {
                println!("{:>5} {words:>8}", log.0[step].step);
                continue;
            };
            let w = Duration::from_nanos((0..p).map(|q| at(q, 0)).max().unwrap_or(0));
            let measured = Duration::from_nanos((0..p).map(|q| at(q, 2)).max().unwrap_or(0));
            let predicted = m.predict(w, h);
            predicted_total += predicted;
            measured_total += measured;
            println!(
                "{:>5} {words:>8} {:>12} {:>12} {:>12} {:>6.2}",
                log.0[step].step,
                us(w),
                us(predicted),
                us(measured),
                predicted.as_secs_f64() / measured.as_secs_f64().max(1e-12)
            );
        }
        if machine.is_some() {
            println!(
                "{:>5} {:>8} {:>12} {:>12} {:>12} {:>6.2}",
                "total",
                "",
                "",
                us(predicted_total),
                us(measured_total),
                predicted_total.as_secs_f64() / measured_total.as_secs_f64().max(1e-12)
            );
        }
    }
    ctx.unregister(all);
}

fn us(d: Duration) -> String {
    format!("{:.2} us", d.as_secs_f64() * 1e6)
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (mut path, mut n, mut reps) = (std::env::var("BSP_MACHINE").ok(), 1 << 18, 3usize);
    while let Some(a) = args.next() {
        let mut number = |name: &str| {
            args.next().and_then(|v| v.parse::<usize>().ok()).ok_or(format!("`{name}` needs a positive integer"))
        };
        let parsed = match a.as_str() {
            "--n" => number("--n").map(|v| n = v),
            "--reps" => number("--reps").map(|v| reps = v),
            "-h" | "--help" => Err(String::new()),
            _ if !a.starts_with('-') => {
                path = Some(a);
                Ok(())
            }
            _ => Err(format!("unknown argument `{a}`")),
        };
        if let Err(e) = parsed {
            eprintln!("{e}\n{USAGE}");
            return ExitCode::from(2);
        }
    }
    let machine = match path.as_deref().map(Machine::load) {
        None => None,
        Some(Ok(m)) => Some(m),
        Some(Err(e)) => {
            eprintln!("error: {e}\n{USAGE}");
            return ExitCode::FAILURE;
        }
    };
    if let (Some(m), Some(path)) = (&machine, &path) {
        println!(
            "machine ({path}): p = {}, r = {:.0} Mflop/s, g = {:.2} ns per word, l = {:.3} us",
            m.p,
            m.r / 1e6,
            m.g * 1e9,
            m.l * 1e6
        );
    }
    let n_mv = (n as f64).sqrt() as usize * 2;
    bsp::exit_on_error(Launch::new().run(|ctx| {
        // The measured side of the comparison needs the times (the default keeps only counts).
        ctx.set_stats(bsp::stats::StatsMode::Timed);
        let p = ctx.nprocs();
        match &machine {
            Some(m) if ctx.pid() == 0 && p != m.p => {
                println!("note: the machine was measured with p = {}, this run has p = {p}", m.p)
            }
            _ => {}
        }
        let mut log = Log::default();
        for _ in 0..reps {
            let alpha = inner_product(ctx, n, &mut log);
            let want = (n as f64) * (n as f64 - 1.0);
            if alpha != want {
                ctx.abort(format!("inner product {alpha}, expected {want}"));
            }
        }
        report(ctx, &format!("inner product, n = {n}, {reps} times"), &log, machine.as_ref());
        let mut log = Log::default();
        for _ in 0..reps {
            matvec(ctx, n_mv, &mut log);
        }
        report(ctx, &format!("matrix-vector product, n = {n_mv}, {reps} times"), &log, machine.as_ref());
    }));
    ExitCode::SUCCESS
}
