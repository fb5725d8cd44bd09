//! The parallel FFT of Bisseling's *Parallel Scientific Computation* (2nd ed., ch. 3), and its
//! inverse: the book version beside the tutorial `fft`.
//!
//! The transform of x (length n, a power of two) is `X_k = Σ_j x_j ω_n^{jk}`, `ω_n = e^{-2πi/n}`.
//! The sequential algorithm is the radix-2 decimation in time: a bit reversal `σ_n`, then the
//! butterfly stages k = 2, 4, ..., n, where stage k combines elements j and j + k/2 of each
//! group of k with the weight `ω_k^j`. The book distributes x with the **group-cyclic
//! distribution** of cycle c (c divides p): the vector is cut into p/c blocks of nc/p
//! elements, and block J is distributed cyclically over the c processes Jc, ..., Jc + c - 1.
//! Cycle 1 is the block distribution, cycle p the cyclic one. A stage k is local when
//! 2c ≤ k ≤ nc/p, so the parallel FFT goes:
//!
//! - x is distributed cyclically (element j on process j mod p). Its bit reversal is block
//!   distributed, process s holding block `σ_p(s)`, and needs no communication: a local bit
//!   reversal `σ_{n/p}` of each process's elements.
//! - Stages 2, ..., n/p on the blocks (cycle 1): a sequential FFT of each block.
//! - While c < p: redistribute from cycle c to cycle c' = min(nc/p, p) (one superstep, the
//!   book's cyclic-to-cyclic redistribution: each process sends c'/c packets of n/c' elements),
//!   then stages 2nc/p, ..., nc'/p with the process's own weights `ω_k^{(s mod c') + c'·t}`.
//!   With p² ≤ n there is one redistribution (block to cyclic), otherwise more.
//! - The result is X in natural order, cyclically distributed: the input distribution of the
//!   inverse, which is the same with conjugate weights and a scaling by 1/n.
//!
//! The weights are computed once, before the clock starts (the book's `bspfft_init`). A
//! redistribution reads the process's elements of x and puts them elsewhere into x:
//! `ctx.put_batch_with_local(&mut x)` gives the batch and the local part at once.
//!
//! The input is pseudo-random (the same for every p). The program checks that the inverse
//! transform gives the input back (largest error below 1e-12), Parseval's identity
//! `Σ|X_k|² = n Σ|x_j|²`, and two values `X_k` against their direct sums `Σ_j x_j ω_n^{jk}`,
//! with one `allreduce`, and exits with status 1 if any fails.
//! **n and p must be powers of two with 2p ≤ n**; other values stop the program with an error.
//!
//! ```text
//! cargo run --release --example book_fft             # n = 4096
//! BSP_NPROCS=4 cargo run --release --example book_fft -- 1048576
//! ```
//!
//! Process 0 prints `book_fft ok, n = 4096, inverse error < 1e-12, parseval error < 1e-12, X_k
//! matches its direct sum` on stdout, the same for every p, and the time of the forward and inverse transforms on stderr
//! (`book_fft: n=… p=… time … s`). Syncs: 2r + 3 with r = ⌈log(p) / log(n/p)⌉ redistributions
//! per transform (r = 1 when p² ≤ n > p, 0 at p = 1): one to register x, one to start the clock
//! together, r per transform, one for the check. Time against a sequential version of the same
//! algorithm: `bash scripts/book`.

use std::f64::consts::PI;
use std::ops::{Add, Mul, Sub};

use bsp::{Ctx, Reg};

/// Length of the vector unless given as the first argument.
const DEFAULT_N: usize = 4096;
const SEED: u64 = 0x0ff7_5eed;

/// A complex number, registrable (`Pod`).
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct Complex {
    pub re: f64,
    pub im: f64,
}

impl Complex {
    fn conj(self) -> Complex {
        Complex { re: self.re, im: -self.im }
    }
    fn norm_sqr(self) -> f64 {
        self.re * self.re + self.im * self.im
    }
    /// `e^{-2πi·j/k}`.
    fn root(j: usize, k: usize) -> Complex {
        let angle = -2.0 * PI * j as f64 / k as f64;
        Complex { re: angle.cos(), im: angle.sin() }
    }
}
impl Add for Complex {
    type Output = Complex;
    fn add(self, o: Complex) -> Complex {
        Complex { re: self.re + o.re, im: self.im + o.im }
    }
}
impl Sub for Complex {
    type Output = Complex;
    fn sub(self, o: Complex) -> Complex {
        Complex { re: self.re - o.re, im: self.im - o.im }
    }
}
impl Mul for Complex {
    type Output = Complex;
    fn mul(self, o: Complex) -> Complex {
        Complex { re: self.re * o.re - self.im * o.im, im: self.re * o.im + self.im * o.re }
    }
}

/// Input element j: pseudo-random in [-1, 1)², from a 64-bit hash of j (so every process
/// generates its own elements of one global vector, whatever p is).
pub fn input(j: usize) -> Complex {
    let mix = |mut z: u64| {
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 52) as f64) - 1.0
    };
    Complex { re: mix(SEED ^ (2 * j as u64)), im: mix(SEED ^ (2 * j as u64 + 1)) }
}

/// The local bit reversal `σ` of a slice whose length is a power of two.
pub fn bit_reverse(x: &mut [Complex]) {
    let bits = x.len().trailing_zeros();
    for j in 1..x.len() {
        let r = j.reverse_bits() >> (usize::BITS - bits);
        if j < r {
            x.swap(j, r);
        }
    }
}

/// The butterflies of one stage on local elements: in each group of `2·w.len()` consecutive
/// elements, element t of the first half pairs with element t of the second with weight `w[t]`
/// (conjugated for the inverse).
fn stage<const INVERSE: bool>(x: &mut [Complex], w: &[Complex]) {
    for group in x.chunks_exact_mut(2 * w.len()) {
        let (top, bottom) = group.split_at_mut(w.len());
        for ((a, b), &w) in top.iter_mut().zip(bottom.iter_mut()).zip(w) {
            let t = *b * if INVERSE { w.conj() } else { w };
            (*a, *b) = (*a + t, *a - t);
        }
    }
}

/// A phase of the parallel FFT: the distribution of cycle `cycle` and the weights of the
/// stages local to it, one list per stage.
#[derive(Debug)]
pub struct Phase {
    cycle: usize,
    stages: Vec<Vec<Complex>>,
}

/// The book's `bspfft_init`: the phases of process `s` of `p` for length n, with its weights.
pub fn plan(n: usize, p: usize, s: usize) -> Vec<Phase> {
    let mut phases = Vec::new();
    let (mut cycle, mut k) = (1, 2);
    loop {
        let mut stages = Vec::new();
        while k <= n * cycle / p {
            // Local element t of a group is global element (s mod c) + c·t of its group of k.
            stages.push((0..k / (2 * cycle)).map(|t| Complex::root(s % cycle + cycle * t, k)).collect());
            k *= 2;
        }
        phases.push(Phase { cycle, stages });
        if cycle == p {
            return phases;
        }
        cycle = (n * cycle / p).min(p);
    }
}

/// Redistributes x from the group-cyclic distribution of cycle `c0` to that of cycle `c1`.
/// Process s holds block `block` of cycle `c0`; its local element m + ratio·u (ratio = c1/c0)
/// goes to process (block / ratio)·c1 + s mod c0 + c0·m, at local index
/// (block mod ratio)·n/(p·ratio) + u. One sync.
fn redistribute(ctx: &mut Ctx, x: &mut Reg<Complex>, c0: usize, c1: usize, block: usize) {
    let s = ctx.pid();
    let ratio = c1 / c0;
    let size = x.len() / ratio;
    let mut packet = Vec::with_capacity(size);
    let (mut batch, local) = ctx.put_batch_with_local(x);
    for m in 0..ratio {
        packet.clear();
        packet.extend(local[m..].iter().step_by(ratio));
        batch.put((block / ratio) * c1 + s % c0 + c0 * m, &packet[..], (block % ratio) * size);
    }
    drop(batch);
    ctx.sync();
}

/// The book's `bspfft`: the transform (or, unscaled, the inverse) of the cyclically distributed
/// x, in place; the result is in natural order, cyclically distributed. One sync per
/// redistribution.
pub fn bspfft<const INVERSE: bool>(ctx: &mut Ctx, x: &mut Reg<Complex>, phases: &[Phase]) {
    let (s, p) = (ctx.pid(), ctx.nprocs());
    bit_reverse(x.local_mut(ctx)); // now block σ_p(s) of the block distribution
    let mut block = if p == 1 { 0 } else { s.reverse_bits() >> (usize::BITS - p.trailing_zeros()) };
    for (i, phase) in phases.iter().enumerate() {
        if i > 0 {
            redistribute(ctx, x, phases[i - 1].cycle, phase.cycle, block);
            block = s / phase.cycle;
        }
        let local = x.local_mut(ctx);
        for w in &phase.stages {
            stage::<INVERSE>(local, w);
        }
    }
}

/// What the check adds up over all processes.
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct Check {
    /// Largest |x_j - ifft(fft(x))_j|.
    inverse_error: f64,
    /// Σ |x_j|².
    input_energy: f64,
    /// Σ |X_k|².
    output_energy: f64,
    /// `X_k` for the k of `SPOTS`, and `Σ_j x_j ω_n^{jk}` summed directly.
    spot: [Complex; 2],
    direct: [Complex; 2],
}

/// The k for which the check compares `X_k` with its direct sum (Parseval and the round trip
/// alone would pass any transform that butterflies with wrong weights of modulus 1).
fn spots(n: usize) -> [usize; 2] {
    [1 % n, (n / 2 + 1) % n]
}

/// The first argument as a number, or `default`.
fn size_argument(default: usize) -> usize {
    match std::env::args().nth(1) {
        Some(arg) => arg.parse().unwrap_or_else(|_| panic!("the argument `{arg}` is not a length")),
        None => default,
    }
}

#[bsp::program]
fn main(ctx: &mut Ctx) {
    let (s, p) = (ctx.pid(), ctx.nprocs());
    let n = size_argument(DEFAULT_N);
    if !n.is_power_of_two() || !p.is_power_of_two() || 2 * p > n {
        ctx.abort(format!("book_fft: n = {n} and p = {p} must be powers of two with 2p ≤ n"));
    }
    let phases = plan(n, p, s);
    let input: Vec<Complex> = (s..n).step_by(p).map(input).collect();
    let mut x = ctx.register(input.clone());

    ctx.sync();
    let start = ctx.time();
    bspfft::<false>(ctx, &mut x, &phases);
    let mut time = ctx.time() - start;
    let energy: f64 = x.local(ctx).iter().map(|v| v.norm_sqr()).sum();
    let spot = spots(n).map(|k| if k % p == s { x.local(ctx)[k / p] } else { Complex::default() });
    let start = ctx.time();
    bspfft::<true>(ctx, &mut x, &phases);
    let scale = 1.0 / n as f64;
    for v in x.local_mut(ctx) {
        *v = Complex { re: v.re * scale, im: v.im * scale };
    }
    time += ctx.time() - start;

    let back = x.local(ctx);
    let mine = Check {
        inverse_error: input.iter().zip(back).map(|(a, b)| (*a - *b).norm_sqr().sqrt()).fold(0.0, f64::max),
        input_energy: input.iter().map(|v| v.norm_sqr()).sum(),
        output_energy: energy,
        spot,
        direct: spots(n).map(|k| {
            (s..n).step_by(p).map(|j| input[j / p] * Complex::root(j * k % n, n)).fold(Complex::default(), Complex::add)
        }),
    };
    let total = ctx.allreduce_one(mine, |a, b| Check {
        inverse_error: a.inverse_error.max(b.inverse_error),
        input_energy: a.input_energy + b.input_energy,
        output_energy: a.output_energy + b.output_energy,
        spot: [a.spot[0] + b.spot[0], a.spot[1] + b.spot[1]],
        direct: [a.direct[0] + b.direct[0], a.direct[1] + b.direct[1]],
    });
    let spot_error = (0..2).map(|i| (total.spot[i] - total.direct[i]).norm_sqr().sqrt()).fold(0.0, f64::max);
    let parseval = (total.output_energy - n as f64 * total.input_energy).abs() / (n as f64 * total.input_energy);
    if !(total.inverse_error < 1e-12 && parseval < 1e-12 && spot_error < 1e-9 * n as f64) {
        ctx.abort(format!(
            "book_fft: inverse transform error {:e}, parseval relative error {parseval:e} (both should be below 1e-12), error of X_k against its direct sum {spot_error:e} (should be below 1e-9·n)",
            total.inverse_error
        ));
    }
    if s == 0 {
        println!("book_fft ok, n = {n}, inverse error < 1e-12, parseval error < 1e-12, X_k matches its direct sum");
        eprintln!("book_fft: n={n} p={p} time {time:.6} s");
    }
}
