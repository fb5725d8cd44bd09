//! The sequential baseline of `examples/book_bspmv.rs`: the same sparse matrix in compressed
//! sparse rows (`u32` columns), and the same number of products `u = A·v`, on one thread, in
//! plain Rust.

use std::time::Instant;

/// Nonzeros per row besides the diagonal, as in the example.
pub const OFF_DIAGONAL: usize = 6;
/// Products timed, as in the example.
pub const PRODUCTS: usize = 20;

/// A pseudo-random 64-bit hash of `x`, as in the example.
fn hash(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The nonzeros of row i, as (column, value), as the example makes them.
pub fn row(n: usize, i: usize) -> impl Iterator<Item = (usize, f64)> {
    let off = (1..=OFF_DIAGONAL as u64).map(move |k| {
        let h = hash(((i as u64) << 8) + k);
        ((h >> 8) as usize % n, [-3.0, -2.0, -1.0, 1.0, 2.0, 3.0][(h & 0xff) as usize % 6])
    });
    std::iter::once((i, 8.0)).chain(off)
}

/// A in compressed sparse rows.
#[derive(Debug)]
pub struct Csr {
    starts: Vec<usize>,
    columns: Vec<u32>,
    values: Vec<f64>,
}

impl Csr {
    /// The example's matrix of order `n`.
    pub fn new(n: usize) -> Csr {
        let mut a = Csr { starts: vec![0], columns: Vec::new(), values: Vec::new() };
        for i in 0..n {
            for (j, x) in row(n, i) {
                a.columns.push(j as u32);
                a.values.push(x);
            }
            a.starts.push(a.values.len());
        }
        a
    }

    /// `u = A·v`.
    pub fn multiply(&self, v: &[f64], u: &mut [f64]) {
        for (ui, r) in u.iter_mut().zip(self.starts.windows(2)) {
            let (values, columns) = (&self.values[r[0]..r[1]], &self.columns[r[0]..r[1]]);
            *ui = values.iter().zip(columns).map(|(&a, &c)| a * v[c as usize]).sum();
        }
    }
}

/// Seconds that `PRODUCTS` products take with the example's matrix and vector of order `n`
/// (their generation not counted).
pub fn seconds(n: usize) -> f64 {
    let a = Csr::new(n);
    let v: Vec<f64> = (0..n).map(|j| (1 + j % 5) as f64).collect();
    let mut u = vec![0.0; n];
    let start = Instant::now();
    for _ in 0..PRODUCTS {
        a.multiply(std::hint::black_box(&v), &mut u);
        std::hint::black_box(&mut u);
    }
    start.elapsed().as_secs_f64()
}
