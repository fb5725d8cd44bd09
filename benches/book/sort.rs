//! Sample sort on one process is a local sort: the standard library's `sort_unstable` of the
//! same n keys as `examples/book_sort.rs`.

use std::hint::black_box;
use std::time::Instant;

/// Element `index` of the example's pseudo-random sequence (a 64-bit linear congruential
/// generator, reached in O(log index) steps).
fn lcg(seed: u64, index: u64) -> u64 {
    const A: u64 = 6364136223846793005;
    const C: u64 = 1442695040888963407;
    let (mut a, mut c, mut mul, mut add) = (A, C, 1u64, 0u64);
    let mut k = index + 1;
    while k > 0 {
        if k & 1 == 1 {
            mul = mul.wrapping_mul(a);
            add = add.wrapping_mul(a).wrapping_add(c);
        }
        c = c.wrapping_mul(a.wrapping_add(1));
        a = a.wrapping_mul(a);
        k >>= 1;
    }
    mul.wrapping_mul(seed).wrapping_add(add)
}

/// Seconds to sort n keys (made before the clock starts).
pub fn seconds(n: usize) -> f64 {
    let mut keys: Vec<u64> = (0..n).map(|i| lcg(0x5027_5eed, i as u64) >> 24).collect();
    let start = Instant::now();
    black_box(&mut keys).sort_unstable();
    let time = start.elapsed().as_secs_f64();
    assert!(keys.is_sorted(), "sequential sort");
    time
}
