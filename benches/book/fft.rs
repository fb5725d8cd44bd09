//! The book's FFT on one process: the bit reversal and the radix-2 stages k = 2, ..., n with the
//! weights `ω_k^j` computed beforehand, forward and inverse (scaled by 1/n), on the same input as
//! `examples/book_fft.rs`: what that example does at p = 1, without the BSP calls.

use std::f64::consts::PI;
use std::hint::black_box;
use std::time::Instant;

#[derive(Clone, Copy, Default)]
struct Complex {
    re: f64,
    im: f64,
}

impl Complex {
    fn mul(self, o: Complex) -> Complex {
        Complex { re: self.re * o.re - self.im * o.im, im: self.re * o.im + self.im * o.re }
    }
}

fn input(j: usize) -> Complex {
    let mix = |mut z: u64| {
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 52) as f64) - 1.0
    };
    Complex { re: mix(0x0ff7_5eed ^ (2 * j as u64)), im: mix(0x0ff7_5eed ^ (2 * j as u64 + 1)) }
}

fn bit_reverse(x: &mut [Complex]) {
    let bits = x.len().trailing_zeros();
    for j in 1..x.len() {
        let r = j.reverse_bits() >> (usize::BITS - bits);
        if j < r {
            x.swap(j, r);
        }
    }
}

fn stage<const INVERSE: bool>(x: &mut [Complex], w: &[Complex]) {
    for group in x.chunks_exact_mut(2 * w.len()) {
        let (top, bottom) = group.split_at_mut(w.len());
        for ((a, b), &w) in top.iter_mut().zip(bottom.iter_mut()).zip(w) {
            let w = if INVERSE { Complex { re: w.re, im: -w.im } } else { w };
            let t = b.mul(w);
            (*a, *b) = (Complex { re: a.re + t.re, im: a.im + t.im }, Complex { re: a.re - t.re, im: a.im - t.im });
        }
    }
}

fn fft<const INVERSE: bool>(x: &mut [Complex], weights: &[Vec<Complex>]) {
    bit_reverse(x);
    for w in weights {
        stage::<INVERSE>(x, w);
    }
}

/// Seconds for the forward and the inverse transform of length n (input and weights made
/// before the clock starts).
pub fn seconds(n: usize) -> f64 {
    let weights: Vec<Vec<Complex>> = (1..=n.trailing_zeros())
        .map(|log_k| {
            let k = 1usize << log_k;
            (0..k / 2)
                .map(|j| {
                    let angle = -2.0 * PI * j as f64 / k as f64;
                    Complex { re: angle.cos(), im: angle.sin() }
                })
                .collect()
        })
        .collect();
    let original: Vec<Complex> = (0..n).map(input).collect();
    let mut x = original.clone();
    let start = Instant::now();
    fft::<false>(black_box(&mut x), &weights);
    fft::<true>(black_box(&mut x), &weights);
    let scale = 1.0 / n as f64;
    for v in &mut x {
        *v = Complex { re: v.re * scale, im: v.im * scale };
    }
    let time = start.elapsed().as_secs_f64();
    let error = x.iter().zip(&original).map(|(a, b)| (a.re - b.re).hypot(a.im - b.im)).fold(0.0, f64::max);
    assert!(error < 1e-12, "sequential fft: round trip error {error:e}");
    time
}
