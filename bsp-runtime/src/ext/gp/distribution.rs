//! How a GP array's index space is split into one block per process, exactly as Global Arrays
//! (GA) splits it, so that `distribution()` answers what GA's `GP_Distribution` would.
//!
//! Everything in the public API is in **C order, 0-based, with inclusive upper bounds**, the way
//! a C user of GA's GP library sees it. GA itself works in Fortran order (its axis 0 is our
//! *last* axis), and the default algorithm below is written in that order because its
//! tie-breaking and its chunk quirk depend on it. The conversion happens once, at construction.
//!
//! # The shape of every distribution
//!
//! Each axis `d` is cut into `grid[d]` consecutive, non-empty blocks, described by the 0-based
//! start of each block (the first start is 0, starts strictly increase, a block ends where the
//! next one starts, the last one ends at `dims[d] - 1`). The blocks of the array are the
//! Cartesian products of one block per axis. Block `(k0, …, k_{n-1})` belongs to process
//!
//! ```text
//! proc = ((k0 · grid[1] + k1) · grid[2] + k2) · … + k_{n-1}
//! ```
//!
//! i.e. the **last C axis varies fastest** (GA: its first, Fortran, axis varies fastest).
//! Processes numbered `Π grid` and above own nothing. Inside a block, elements are stored
//! row-major (last C axis fastest), which is GA's column-major storage seen from C.
//!
//! # The default (regular) distribution
//!
//! This re-derives GA's `pnga_allocate` (with `ddb_h2` as the grid heuristic, which is what GA
//! builds with) in our own terms. Axes are visited in **Fortran order** (reverse C order) and
//! `P` is the number of processes.
//!
//! 1. **Granule per axis.** If the chunk value of the *last C axis* is non-zero, the granule of
//!    axis `d` is `min(chunk[d], dims[d])`; otherwise (this includes "no chunk set", since GA's
//!    default chunk is 0 everywhere) every granule is "don't care". An axis of extent 1 always
//!    has granule 1. A granule below 1 counts as 1. The number of granules on an axis is
//!    `ceil(dims[d] / granule)`.
//! 2. **Processor grid.** Factor `P` into primes with multiplicity. Start with one process per
//!    axis. Hand out the primes from the largest to the smallest: for a prime `f`, every axis
//!    gets a score, `1.1` when it has fewer granules than `f` times its current process count
//!    `c`, otherwise `(granules mod (f·c)) / granules`, the fraction left over if the axis were
//!    split `f·c` ways. The axis with the strictly smallest score wins `f` (its count becomes
//!    `f·c`); axes are scanned starting at a rotating position (0, 1, 2, … modulo the number
//!    of axes, advanced after each prime), so on a tie the first axis in that scan wins. GA's
//!    exhaustive fallback search only runs when the load-balance ratio is below a threshold
//!    that GA sets to 0, so it never runs. Each axis' nominal block then holds
//!    `ceil(granules / count)` granules.
//! 3. **Block starts.** With `b` granules per nominal block and `c` processes on the axis, the
//!    first `cut = G - (b - 1)·c` processes get `b` granules and the others `b - 1`, where `G`
//!    is `ceil(dims[d] / min(chunk[d], dims[d]))` when the axis' *own* chunk value is above 1
//!    and `dims[d]` otherwise. Granules are converted to elements by multiplying with
//!    `min(chunk[d], dims[d])` when that chunk value is above 1. Blocks are laid down from
//!    index 0 until either `c` blocks exist or the axis is covered; the last block made always
//!    runs to the end of the axis. If the axis is covered early, the axis simply has fewer
//!    blocks than processes were planned for it, and the processes beyond the product of the
//!    actual block counts own nothing.
//!
//! **The quirk.** Step 1 looks only at the last C axis' chunk value, but step 3 looks at every
//! axis' own value. So a chunk whose last C entry is 0 is ignored when the grid is chosen, yet
//! still scales the blocks. For C dims `[8, 8]`, chunk `[4, 0]` and `P = 4`, step 2 plans a
//! 2 × 2 grid, but on the first C axis one block of `(4 - 1) · 4 = 12` rows already covers all
//! 8 rows, so the grid becomes `[1, 2]` and processes 2 and 3 own nothing.
//!
//! A few results (C order):
//!
//! ```text
//! dims      P  chunk    grid     blocks per axis
//! [10]      3  -        [3]      0-3, 4-6, 7-9
//! [7, 5]    6  -        [6, 1]   rows 0-1, 2, 3, 4, 5, 6; columns 0-4
//! [100, 50] 12 -        [3, 4]   rows 0-33, 34-66, 67-99; columns 0-12, 13-25, 26-37, 38-49
//! [6, 6]    4  [6, -1]  [1, 4]   rows 0-5; columns 0-1, 2-3, 4, 5
//! [8, 8]    4  [4, 0]   [1, 2]   rows 0-7; columns 0-3, 4-7; processes 2 and 3 own nothing
//! ```
//!
//! # Irregular distributions
//!
//! [`Distribution::irregular`] takes the block starts directly (`GP_Set_irreg_distr`). GA
//! accepts them in Fortran order and 1-based; here they are C order and 0-based.
//!
//! # Cost
//!
//! Construction is `O(P^{1/2} + ndim · log P + Σ grid)`. [`Distribution::owner`] and
//! [`Distribution::local_index`] binary-search the block starts of each axis:
//! `O(ndim · log blocks)`.

/// Why a distribution could not be made, or a subscript is not in it: what was wrong, in a
/// lowercase sentence that names the values involved.
///
/// ```
/// use bsp_runtime::gp::Distribution;
/// let err = Distribution::regular(&[4, 0], 2, None).unwrap_err();
/// assert!(err.message().contains("axis 1 has extent 0"));
/// let dist = Distribution::regular(&[4], 2, None).unwrap();
/// assert!(dist.owner(&[9]).unwrap_err().to_string().contains("out of range"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DistributionError(String);

impl DistributionError {
    /// The explanation (the same text as `Display`).
    pub fn message(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for DistributionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DistributionError {}

/// The most dimensions a GP array can have (GA's `GP_MAX_DIM`).
pub const MAX_NDIM: usize = 7;

/// How a GP array's index space is split over processes.
///
/// Built by [`Distribution::regular`] (GA's default algorithm, see the
/// [module documentation](self)) or [`Distribution::irregular`] (explicit block starts). All
/// indices are C order, 0-based, and bounds are inclusive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Distribution {
    /// Extent of each axis, C order; all at least 1.
    dims: Vec<usize>,
    /// For each axis, the 0-based start of every block: first 0, strictly increasing, all
    /// below `dims[d]`.
    starts: Vec<Vec<usize>>,
    /// Blocks actually made on each axis (`starts[d].len()`), C order.
    grid: Vec<usize>,
    /// Number of processes the array is distributed over (some may own nothing).
    nprocs: usize,
}

impl Distribution {
    /// GA's default (regular) distribution of an array of extents `dims` (C order) over
    /// `nprocs` processes.
    ///
    /// `chunk` holds the `GP_Set_chunk` values in C order, or `None` if it was never called
    /// (GA then uses 0 everywhere). A value `<= 0` puts no constraint on its axis; a value
    /// `c > 1` makes the axis' blocks multiples of `min(c, dims[d])` (except the last one).
    /// The chunk values are only used to choose the processor grid if the last C entry is
    /// non-zero, but they always scale the blocks: see the quirk in the
    /// [module documentation](self).
    ///
    /// # Errors
    ///
    /// If `dims` has no axis or more than [`MAX_NDIM`], if an extent is 0 (GA rejects extents
    /// below 1), if `nprocs` is 0, if `chunk` does not have one value per axis, or if a number
    /// is too large for GA's 64-bit signed arithmetic.
    pub fn regular(dims: &[usize], nprocs: usize, chunk: Option<&[i64]>) -> Result<Distribution, DistributionError> {
        Self::regular_impl(dims, nprocs, chunk).map_err(DistributionError)
    }

    fn regular_impl(dims: &[usize], nprocs: usize, chunk: Option<&[i64]>) -> Result<Distribution, String> {
        check_dims(dims)?;
        check_nprocs(nprocs)?;
        if let Some(chunk) = chunk
            && chunk.len() != dims.len()
        {
            return Err(format!(
                "`chunk` has {} values {:?} but the array has {} dimensions {:?}: give one \
                     chunk value per axis (0 or less for no constraint)",
                chunk.len(),
                chunk,
                dims.len(),
                dims
            ));
        }

        let ndim = dims.len();
        // GA's view: Fortran order, signed 64-bit integers.
        let fdims =
            dims.iter().rev().map(|&d| to_i64(d, "an array extent", dims)).collect::<Result<Vec<i64>, String>>()?;
        let fchunk: Vec<i64> = match chunk {
            Some(chunk) => chunk.iter().rev().copied().collect(),
            None => vec![0; ndim],
        };
        let p = to_i64(nprocs, "the number of processes", dims)?;

        // Step 1: granule per axis, decided by the chunk value of Fortran axis 0 only.
        let mut granule: Vec<i64> =
            if fchunk[0] != 0 { fdims.iter().zip(&fchunk).map(|(&d, &c)| c.min(d)).collect() } else { vec![-1; ndim] };
        for (g, &d) in granule.iter_mut().zip(&fdims) {
            if d == 1 {
                *g = 1;
            }
        }

        // Step 2: processor grid and nominal granules per block.
        let (planned, per_block) = grid_heuristic(&fdims, p, &granule);

        // Step 3: block starts, axis by axis; an axis may end up with fewer blocks.
        let mut fstarts = Vec::with_capacity(ndim);
        for d in 0..ndim {
            let scaled = fchunk[d] > 1;
            let unit = if scaled { fchunk[d].min(fdims[d]) } else { 1 };
            let granules = if scaled { ceil_div(fdims[d], unit) } else { fdims[d] };
            let cut = granules - (per_block[d] - 1) * planned[d];
            let mut starts = Vec::new();
            let mut next: i64 = 0;
            let mut q: i64 = 0;
            while q < planned[d] && next < fdims[d] {
                let mut len = per_block[d];
                if q >= cut {
                    len -= 1;
                }
                // Lossless: 0 <= next < fdims[d], which came from a usize.
                starts.push(next as usize);
                next += len * unit;
                q += 1;
            }
            fstarts.push(starts);
        }
        fstarts.reverse();
        Distribution::from_starts(dims.to_vec(), fstarts, nprocs)
    }

    /// An irregular distribution (`GP_Set_irreg_distr`): axis `d` has `nblock[d]` blocks, and
    /// `mapc` lists the 0-based start of every block, all of axis 0 first, then axis 1, and so
    /// on (C order).
    ///
    /// Blocks are numbered as in every distribution (last C axis fastest), so process `p`
    /// owns the block whose per-axis indices are the mixed-radix digits of `p` in base `nblock`.
    ///
    /// # Errors
    ///
    /// If `dims` has no axis or more than [`MAX_NDIM`], if an extent is 0, if `nprocs` is 0, if
    /// `nblock` does not have one value per axis, if some `nblock[d]` is 0 or exceeds
    /// `dims[d]`, if the product of `nblock` is not `nprocs`, if `mapc` does not hold exactly
    /// `Σ nblock` starts, or if the starts of an axis do not begin at 0, do not strictly
    /// increase, or reach `dims[d]`.
    pub fn irregular(
        dims: &[usize],
        nprocs: usize,
        mapc: &[usize],
        nblock: &[usize],
    ) -> Result<Distribution, DistributionError> {
        Self::irregular_impl(dims, nprocs, mapc, nblock).map_err(DistributionError)
    }

    fn irregular_impl(dims: &[usize], nprocs: usize, mapc: &[usize], nblock: &[usize]) -> Result<Distribution, String> {
        check_dims(dims)?;
        check_nprocs(nprocs)?;
        if nblock.len() != dims.len() {
            return Err(format!(
                "`nblock` has {} values {:?} but the array has {} dimensions {:?}: give the \
                 number of blocks of every axis",
                nblock.len(),
                nblock,
                dims.len(),
                dims
            ));
        }
        for (d, (&nb, &extent)) in nblock.iter().zip(dims).enumerate() {
            if nb == 0 || nb > extent {
                return Err(format!(
                    "`nblock[{d}]` is {nb} but axis {d} has extent {extent}: an axis needs \
                     between 1 and its extent blocks (nblock {nblock:?}, dims {dims:?})"
                ));
            }
        }
        let blocks = nblock.iter().try_fold(1usize, |acc, &nb| acc.checked_mul(nb));
        if blocks != Some(nprocs) {
            let made = blocks.map_or_else(|| "too many".to_string(), |b| b.to_string());
            return Err(format!(
                "`nblock` {nblock:?} makes {made} blocks but there are {nprocs} processes: the \
                 product of `nblock` must equal the number of processes"
            ));
        }
        let expected = nblock.iter().fold(0usize, |acc, &nb| acc.saturating_add(nb));
        if mapc.len() != expected {
            return Err(format!(
                "`mapc` has {} starts {:?} but `nblock` {:?} needs {}: list the start of every \
                 block, axis after axis",
                mapc.len(),
                mapc,
                nblock,
                expected
            ));
        }

        let mut starts = Vec::with_capacity(dims.len());
        let mut rest = mapc;
        for (d, (&nb, &extent)) in nblock.iter().zip(dims).enumerate() {
            let (axis, tail) = rest.split_at(nb);
            rest = tail;
            if axis[0] != 0 {
                return Err(format!(
                    "the first block of axis {d} starts at {} in `mapc` {mapc:?}: it must start \
                     at 0",
                    axis[0]
                ));
            }
            for (i, pair) in axis.windows(2).enumerate() {
                if pair[1] <= pair[0] {
                    return Err(format!(
                        "block starts of axis {d} are not strictly increasing: block {} starts \
                         at {} after block {i} at {} (`mapc` {mapc:?}, `nblock` {nblock:?})",
                        i + 1,
                        pair[1],
                        pair[0]
                    ));
                }
            }
            let last = axis[nb - 1];
            if last >= extent {
                return Err(format!(
                    "block {} of axis {d} starts at {last}, outside the axis (extent {extent}; \
                     `mapc` {mapc:?})",
                    nb - 1
                ));
            }
            starts.push(axis.to_vec());
        }
        Distribution::from_starts(dims.to_vec(), starts, nprocs)
    }

    /// Assembles a distribution from validated per-axis block starts (C order).
    fn from_starts(dims: Vec<usize>, starts: Vec<Vec<usize>>, nprocs: usize) -> Result<Distribution, String> {
        for (d, axis) in starts.iter().enumerate() {
            let ok = axis.first() == Some(&0)
                && axis.windows(2).all(|w| w[0] < w[1])
                && axis.last().is_some_and(|&s| s < dims[d]);
            if !ok {
                // Unreachable by the arguments in the module docs; kept as a check, not a panic.
                return Err(format!(
                    "internal error: invalid block starts {axis:?} on axis {d} for dims {dims:?} \
                     and {nprocs} processes"
                ));
            }
        }
        let grid = starts.iter().map(Vec::len).collect();
        Ok(Distribution { dims, starts, grid, nprocs })
    }

    /// Number of dimensions (1 to [`MAX_NDIM`]).
    #[must_use]
    pub fn ndim(&self) -> usize {
        self.dims.len()
    }

    /// Extent of each axis, C order.
    #[must_use]
    pub fn dims(&self) -> &[usize] {
        &self.dims
    }

    /// Number of processes the array is distributed over, including those that own nothing.
    #[must_use]
    pub fn nprocs(&self) -> usize {
        self.nprocs
    }

    /// Processor grid in C order: the number of blocks actually made on each axis. Its
    /// product is the number of processes that own data (at most [`nprocs`](Self::nprocs)).
    #[must_use]
    pub fn grid(&self) -> &[usize] {
        &self.grid
    }

    /// The 0-based start of every block of `axis` (C order), increasing, the first being 0.
    ///
    /// # Panics
    ///
    /// If `axis >= self.ndim()`.
    #[must_use]
    pub fn block_starts(&self, axis: usize) -> &[usize] {
        &self.starts[axis]
    }

    /// Number of processes that own a (non-empty) block: `Π grid`.
    fn owners(&self) -> usize {
        self.grid.iter().product()
    }

    /// Inclusive bounds `(lo, hi)` of the block owned by `proc`, C order, 0-based; `None` if
    /// `proc` owns nothing (including `proc >= nprocs`).
    ///
    /// This is `GP_Distribution`, except that GA reports an empty block as `hi < lo`.
    #[must_use]
    pub fn block(&self, proc: usize) -> Option<(Vec<usize>, Vec<usize>)> {
        if proc >= self.owners() {
            return None;
        }
        let ndim = self.ndim();
        let mut lo = vec![0; ndim];
        let mut hi = vec![0; ndim];
        let mut rest = proc;
        for d in (0..ndim).rev() {
            let k = rest % self.grid[d];
            rest /= self.grid[d];
            let axis = &self.starts[d];
            lo[d] = axis[k];
            hi[d] = axis.get(k + 1).map_or(self.dims[d], |&next| next) - 1;
        }
        Some((lo, hi))
    }

    /// The process owning subscript `sub` (C order, 0-based).
    ///
    /// # Errors
    ///
    /// If `sub` does not have one index per axis or an index is outside its axis.
    pub fn owner(&self, sub: &[usize]) -> Result<usize, DistributionError> {
        self.locate(sub).map(|(proc, _)| proc).map_err(DistributionError)
    }

    /// Where subscript `sub` (C order, 0-based) is stored: `(owner, index)`, with `index` the
    /// row-major (last C axis fastest) position of `sub` inside the owner's block, in
    /// `0..self.local_len(owner)`.
    ///
    /// # Errors
    ///
    /// As [`owner`](Self::owner).
    pub fn local_index(&self, sub: &[usize]) -> Result<(usize, usize), DistributionError> {
        self.locate(sub).map_err(DistributionError)
    }

    /// Number of elements owned by `proc` (0 if it owns nothing).
    #[must_use]
    pub fn local_len(&self, proc: usize) -> usize {
        self.block(proc).map_or(0, |(lo, hi)| lo.iter().zip(&hi).map(|(&l, &h)| h - l + 1).product())
    }

    /// Owner and local row-major index of `sub`, by binary search on each axis' starts.
    fn locate(&self, sub: &[usize]) -> Result<(usize, usize), String> {
        if sub.len() != self.ndim() {
            return Err(format!(
                "subscript {sub:?} has {} indices but the array has {} dimensions {:?}",
                sub.len(),
                self.ndim(),
                self.dims
            ));
        }
        let mut proc = 0;
        let mut index = 0;
        for (d, &i) in sub.iter().enumerate() {
            let extent = self.dims[d];
            if i >= extent {
                return Err(format!(
                    "subscript {sub:?} is out of range for dims {:?}: index {i} on axis {d} \
                     must be below {extent} (subscripts are 0-based)",
                    self.dims
                ));
            }
            let axis = &self.starts[d];
            // The block is the last one starting at or before `i`; axis[0] == 0 <= i.
            let k = axis.partition_point(|&s| s <= i) - 1;
            let lo = axis[k];
            let hi_excl = axis.get(k + 1).map_or(extent, |&next| next);
            proc = proc * self.grid[d] + k;
            index = index * (hi_excl - lo) + (i - lo);
        }
        Ok((proc, index))
    }
}

/// GA's `ddb_h2` with threshold 0 and bias 0, in Fortran order: returns the planned process
/// count per axis and the nominal number of granules per block.
///
/// `granule[d] < 1` means "don't care" and counts as 1. `fdims` are all at least 1 and `p` at
/// least 1.
fn grid_heuristic(fdims: &[i64], p: i64, granule: &[i64]) -> (Vec<i64>, Vec<i64>) {
    let ndim = fdims.len();
    let granules: Vec<i64> = fdims.iter().zip(granule).map(|(&d, &g)| ceil_div(d, g.max(1)).max(1)).collect();

    let mut count = vec![1i64; ndim];
    let mut first = 0;
    for &f in prime_factors(p).iter().rev() {
        // The fraction of granules left over if axis `d` were split `f` times more.
        let score = |d: usize, count: &[i64]| -> f64 {
            let ways = f * count[d];
            if granules[d] < ways {
                1.1
            } else {
                // Exact to f64 for the array sizes that fit in memory; the same division GA
                // does in C doubles, so ties compare the same way.
                (granules[d] % ways) as f64 / granules[d] as f64
            }
        };
        let mut best = first;
        let mut best_score = score(first, &count);
        for j in 1..ndim {
            let d = (first + j) % ndim;
            let s = score(d, &count);
            if s < best_score {
                best = d;
                best_score = s;
            }
        }
        count[best] *= f;
        first = (first + 1) % ndim;
    }
    // GA's exhaustive fallback runs only when the load-balance ratio is below the threshold,
    // which is 0 here; the ratio is never negative, so it never runs.

    let per_block = granules.iter().zip(&count).map(|(&g, &c)| ceil_div(g, c)).collect();
    (count, per_block)
}

/// Prime factors of `n >= 1` with multiplicity, smallest first (empty for 1).
fn prime_factors(mut n: i64) -> Vec<i64> {
    let mut factors = Vec::new();
    let mut f = 2;
    while f <= n / f {
        while n % f == 0 {
            factors.push(f);
            n /= f;
        }
        f += 1;
    }
    if n > 1 {
        factors.push(n);
    }
    factors
}

/// `ceil(a / b)` for `a >= 0`, `b >= 1`.
fn ceil_div(a: i64, b: i64) -> i64 {
    (a + b - 1) / b
}

/// Converts a size to GA's signed 64-bit integer, naming it in the error.
fn to_i64(value: usize, what: &str, dims: &[usize]) -> Result<i64, String> {
    // Leave headroom so that `a + b - 1` and `count * f` cannot overflow.
    i64::try_from(value)
        .ok()
        .filter(|&v| v <= i64::MAX / 4)
        .ok_or_else(|| format!("{what} {value} is too large (dims {dims:?})"))
}

/// Checks the number of dimensions, that every extent is at least 1, and that the element
/// count fits in `usize`.
fn check_dims(dims: &[usize]) -> Result<(), String> {
    if dims.is_empty() || dims.len() > MAX_NDIM {
        return Err(format!("a GP array needs 1 to {MAX_NDIM} dimensions, found {} (dims {dims:?})", dims.len()));
    }
    if let Some(d) = dims.iter().position(|&e| e == 0) {
        return Err(format!("axis {d} has extent 0 in dims {dims:?}: every extent must be at least 1"));
    }
    if dims.iter().try_fold(1usize, |acc, &e| acc.checked_mul(e)).is_none() {
        return Err(format!("dims {dims:?} have more elements than fit in `usize`"));
    }
    Ok(())
}

/// Checks that there is at least one process.
fn check_nprocs(nprocs: usize) -> Result<(), String> {
    if nprocs == 0 {
        return Err("the number of processes is 0: a distribution needs at least 1".to_string());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shorthand for an expected block.
    fn b(lo: &[usize], hi: &[usize]) -> Option<(Vec<usize>, Vec<usize>)> {
        Some((lo.to_vec(), hi.to_vec()))
    }

    /// Checks grid and every process' block, then the generic invariants.
    fn expect(
        dims: &[usize],
        p: usize,
        chunk: Option<&[i64]>,
        grid: &[usize],
        blocks: &[Option<(Vec<usize>, Vec<usize>)>],
    ) {
        let dist = Distribution::regular(dims, p, chunk).unwrap();
        assert_eq!(dist.grid(), grid, "grid of dims {dims:?} P={p} chunk {chunk:?}");
        assert_eq!(blocks.len(), p);
        for (proc, want) in blocks.iter().enumerate() {
            assert_eq!(&dist.block(proc), want, "block of proc {proc} for dims {dims:?} P={p} chunk {chunk:?}");
        }
        check_invariants(&dist);
    }

    /// Per-axis blocks (inclusive ranges) combined with the last C axis fastest.
    fn product_blocks(axes: &[&[(usize, usize)]]) -> Vec<Option<(Vec<usize>, Vec<usize>)>> {
        let mut out = vec![(Vec::new(), Vec::new())];
        for axis in axes {
            let mut next = Vec::new();
            for (lo, hi) in &out {
                for &(l, h) in axis.iter() {
                    let mut lo = lo.clone();
                    let mut hi = hi.clone();
                    lo.push(l);
                    hi.push(h);
                    next.push((lo, hi));
                }
            }
            out = next;
        }
        out.into_iter().map(Some).collect()
    }

    /// Blocks tile the index space without overlap, `owner` agrees with `block`, and
    /// `local_index` is a bijection onto `0..local_len` for every owner.
    fn check_invariants(dist: &Distribution) {
        let dims = dist.dims().to_vec();
        let total: usize = dims.iter().product();
        let owners: usize = dist.grid().iter().product();
        assert!(owners <= dist.nprocs());
        assert_eq!(dist.grid().len(), dist.ndim());
        for (d, (&g, &e)) in dist.grid().iter().zip(&dims).enumerate() {
            assert!(g >= 1 && g <= e, "axis {d}: {g} blocks for extent {e}");
            assert_eq!(dist.block_starts(d).len(), g);
        }

        // Owners have non-empty blocks, the others nothing; lengths add up.
        let mut sum = 0;
        for proc in 0..dist.nprocs() + 2 {
            match dist.block(proc) {
                Some((lo, hi)) => {
                    assert!(proc < owners);
                    for d in 0..dist.ndim() {
                        assert!(lo[d] <= hi[d] && hi[d] < dims[d], "{lo:?}..{hi:?}");
                    }
                    let len: usize = lo.iter().zip(&hi).map(|(l, h)| h - l + 1).product();
                    assert_eq!(dist.local_len(proc), len);
                    sum += len;
                }
                None => {
                    assert!(proc >= owners);
                    assert_eq!(dist.local_len(proc), 0);
                }
            }
        }
        assert_eq!(sum, total, "blocks of {dist:?} do not add up");

        // Every element: owner's block contains it, local indices are distinct and in range.
        let mut seen: Vec<Vec<bool>> = (0..owners).map(|proc| vec![false; dist.local_len(proc)]).collect();
        let mut sub = vec![0; dims.len()];
        for _ in 0..total {
            let owner = dist.owner(&sub).unwrap();
            let (owner2, index) = dist.local_index(&sub).unwrap();
            assert_eq!(owner, owner2);
            let (lo, hi) = dist.block(owner).expect("owner owns a block");
            for d in 0..sub.len() {
                assert!(lo[d] <= sub[d] && sub[d] <= hi[d], "{sub:?} not in {lo:?}..{hi:?}");
            }
            // Row-major index recomputed from the block bounds.
            let mut expected = 0;
            for d in 0..sub.len() {
                expected = expected * (hi[d] - lo[d] + 1) + (sub[d] - lo[d]);
            }
            assert_eq!(index, expected);
            assert!(!seen[owner][index], "{sub:?} collides at {owner}/{index}");
            seen[owner][index] = true;
            // Odometer, last axis fastest.
            for d in (0..sub.len()).rev() {
                sub[d] += 1;
                if sub[d] < dims[d] {
                    break;
                }
                sub[d] = 0;
            }
        }
        assert!(seen.iter().flatten().all(|&s| s), "some local slot is never used");

        // Out of range and wrong-length subscripts are errors.
        let mut bad = vec![0; dims.len()];
        bad[dims.len() - 1] = dims[dims.len() - 1];
        assert!(dist.owner(&bad).is_err());
        assert!(dist.local_index(&bad).is_err());
        assert!(dist.owner(&vec![0; dims.len() + 1]).is_err());
    }

    // ---- The worked examples of docs/semantics.md section 7.3 ----

    #[test]
    fn table_8x8_p4() {
        expect(
            &[8, 8],
            4,
            None,
            &[2, 2],
            &[b(&[0, 0], &[3, 3]), b(&[0, 4], &[3, 7]), b(&[4, 0], &[7, 3]), b(&[4, 4], &[7, 7])],
        );
    }

    #[test]
    fn table_10_p3() {
        expect(&[10], 3, None, &[3], &[b(&[0], &[3]), b(&[4], &[6]), b(&[7], &[9])]);
    }

    #[test]
    fn table_16_p6() {
        expect(
            &[16],
            6,
            None,
            &[6],
            &[b(&[0], &[2]), b(&[3], &[5]), b(&[6], &[8]), b(&[9], &[11]), b(&[12], &[13]), b(&[14], &[15])],
        );
    }

    #[test]
    fn table_5_p8_surplus_processes_own_nothing() {
        expect(
            &[5],
            8,
            None,
            &[5],
            &[b(&[0], &[0]), b(&[1], &[1]), b(&[2], &[2]), b(&[3], &[3]), b(&[4], &[4]), None, None, None],
        );
    }

    #[test]
    fn table_7x5_p6() {
        expect(
            &[7, 5],
            6,
            None,
            &[6, 1],
            &[
                b(&[0, 0], &[1, 4]),
                b(&[2, 0], &[2, 4]),
                b(&[3, 0], &[3, 4]),
                b(&[4, 0], &[4, 4]),
                b(&[5, 0], &[5, 4]),
                b(&[6, 0], &[6, 4]),
            ],
        );
    }

    #[test]
    fn table_12x4_p4() {
        expect(
            &[12, 4],
            4,
            None,
            &[2, 2],
            &[b(&[0, 0], &[5, 1]), b(&[0, 2], &[5, 3]), b(&[6, 0], &[11, 1]), b(&[6, 2], &[11, 3])],
        );
    }

    #[test]
    fn table_9x9_p6() {
        let blocks = product_blocks(&[&[(0, 4), (5, 8)], &[(0, 2), (3, 5), (6, 8)]]);
        // p = 3 * rowblock + colblock
        assert_eq!(blocks[4], b(&[5, 3], &[8, 5]));
        expect(&[9, 9], 6, None, &[2, 3], &blocks);
    }

    #[test]
    fn table_100x50_p12() {
        let blocks = product_blocks(&[&[(0, 33), (34, 66), (67, 99)], &[(0, 12), (13, 25), (26, 37), (38, 49)]]);
        expect(&[100, 50], 12, None, &[3, 4], &blocks);
    }

    #[test]
    fn table_4x6x8_p8() {
        let blocks = product_blocks(&[&[(0, 1), (2, 3)], &[(0, 2), (3, 5)], &[(0, 3), (4, 7)]]);
        // Last axis fastest.
        assert_eq!(blocks[1], b(&[0, 0, 4], &[1, 2, 7]));
        assert_eq!(blocks[4], b(&[2, 0, 0], &[3, 2, 3]));
        expect(&[4, 6, 8], 8, None, &[2, 2, 2], &blocks);
    }

    #[test]
    fn table_3x3_p4() {
        let blocks = product_blocks(&[&[(0, 1), (2, 2)], &[(0, 1), (2, 2)]]);
        expect(&[3, 3], 4, None, &[2, 2], &blocks);
    }

    #[test]
    fn table_1x10_p4() {
        let blocks = product_blocks(&[&[(0, 0)], &[(0, 2), (3, 5), (6, 7), (8, 9)]]);
        expect(&[1, 10], 4, None, &[1, 4], &blocks);
    }

    #[test]
    fn table_6x6_p4_chunk_6_minus1() {
        let blocks = product_blocks(&[&[(0, 5)], &[(0, 1), (2, 3), (4, 4), (5, 5)]]);
        expect(&[6, 6], 4, Some(&[6, -1]), &[1, 4], &blocks);
    }

    #[test]
    fn table_10_p4_chunk_3() {
        expect(&[10], 4, Some(&[3]), &[4], &[b(&[0], &[2]), b(&[3], &[5]), b(&[6], &[8]), b(&[9], &[9])]);
    }

    #[test]
    fn quirk_chunk_with_last_entry_zero_still_scales_blocks() {
        expect(&[8, 8], 4, Some(&[4, 0]), &[1, 2], &[b(&[0, 0], &[7, 3]), b(&[0, 4], &[7, 7]), None, None]);
        // With the last entry non-zero the chunk takes part in the grid choice instead.
        let dist = Distribution::regular(&[8, 8], 4, Some(&[4, -1])).unwrap();
        assert_eq!(dist.grid(), &[2, 2]);
        assert_eq!(dist.block(1), b(&[0, 4], &[3, 7]));
        check_invariants(&dist);
    }

    #[test]
    fn unset_chunk_is_all_zero_chunk() {
        for dims in [&[8usize, 8][..], &[7, 5, 3], &[100]] {
            for p in 1..=13 {
                let zeros = vec![0i64; dims.len()];
                assert_eq!(Distribution::regular(dims, p, None), Distribution::regular(dims, p, Some(&zeros)));
            }
        }
    }

    #[test]
    fn chunk_equal_to_extent_keeps_axis_whole() {
        let dist = Distribution::regular(&[10, 12], 6, Some(&[10, 1])).unwrap();
        assert_eq!(dist.grid()[0], 1);
        assert_eq!(dist.grid(), &[1, 6]);
        check_invariants(&dist);
    }

    // ---- Properties over many shapes ----

    /// A small deterministic generator (no external crates).
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self, bound: usize) -> usize {
            self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((self.0 >> 33) % bound as u64) as usize
        }
    }

    #[test]
    fn regular_tiles_exhaustively_in_1d_and_2d() {
        for p in 1..=16 {
            for n in 1..=40 {
                check_invariants(&Distribution::regular(&[n], p, None).unwrap());
            }
            for r in 1..=9 {
                for c in 1..=9 {
                    check_invariants(&Distribution::regular(&[r, c], p, None).unwrap());
                }
            }
        }
    }

    #[test]
    fn regular_without_chunk_uses_every_process_when_it_can() {
        // Without a chunk an axis only runs out of blocks when it has fewer elements than
        // planned processes, so an array with at least P elements on every axis uses all P.
        for p in 1..=24 {
            for n in p..p + 5 {
                for dims in [vec![n], vec![n, n], vec![n, n + 1, n + 2]] {
                    let dist = Distribution::regular(&dims, p, None).unwrap();
                    assert_eq!(dist.grid().iter().product::<usize>(), p, "{dims:?} P={p}");
                }
            }
        }
    }

    #[test]
    fn regular_tiles_with_chunks() {
        let chunks = [-2i64, -1, 0, 1, 2, 3, 5, 8, 100];
        for p in 1..=12 {
            for r in 1..=8 {
                for c in [1, 2, 5, 7, 11] {
                    for &cr in &chunks {
                        for &cc in &chunks {
                            let dist = Distribution::regular(&[r, c], p, Some(&[cr, cc])).unwrap();
                            check_invariants(&dist);
                            // Blocks on a chunked axis are multiples of the chunk, but the last.
                            for (d, &ch) in [cr, cc].iter().enumerate() {
                                if ch > 1 {
                                    let unit = (ch as usize).min(dist.dims()[d]);
                                    assert!(dist.block_starts(d).iter().all(|s| s % unit == 0));
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn regular_tiles_in_higher_dimensions() {
        let mut rng = Lcg(7);
        for _ in 0..600 {
            let ndim = 1 + rng.next(MAX_NDIM);
            let dims: Vec<usize> = (0..ndim).map(|_| 1 + rng.next(if ndim > 4 { 3 } else { 6 })).collect();
            let p = 1 + rng.next(40);
            let chunk: Option<Vec<i64>> = match rng.next(3) {
                0 => None,
                _ => Some((0..ndim).map(|_| rng.next(6) as i64 - 1).collect()),
            };
            let dist = Distribution::regular(&dims, p, chunk.as_deref()).unwrap();
            check_invariants(&dist);
        }
    }

    #[test]
    fn regular_large_arrays_are_cheap_to_query() {
        let dist = Distribution::regular(&[1 << 20, 3, 1 << 10], 97 * 64, None).unwrap();
        assert_eq!(dist.grid().iter().product::<usize>(), 97 * 64);
        let last = [(1 << 20) - 1, 2, (1 << 10) - 1];
        let (owner, index) = dist.local_index(&last).unwrap();
        assert_eq!(owner, dist.grid().iter().product::<usize>() - 1);
        assert_eq!(index, dist.local_len(owner) - 1);
        assert_eq!(dist.local_index(&[0, 0, 0]).unwrap(), (0, 0));
    }

    #[test]
    fn irregular_maps_are_honoured_exactly() {
        let mut rng = Lcg(42);
        for _ in 0..500 {
            let ndim = 1 + rng.next(4);
            let dims: Vec<usize> = (0..ndim).map(|_| 1 + rng.next(9)).collect();
            let nblock: Vec<usize> = dims.iter().map(|&e| 1 + rng.next(e)).collect();
            // Random strictly increasing starts beginning at 0.
            let mut mapc = Vec::new();
            let mut starts = Vec::new();
            for (&e, &nb) in dims.iter().zip(&nblock) {
                let mut pool: Vec<usize> = (1..e).collect();
                for i in 0..pool.len() {
                    let j = i + rng.next(pool.len() - i);
                    pool.swap(i, j);
                }
                let mut axis = vec![0];
                axis.extend_from_slice(&pool[..nb - 1]);
                axis.sort_unstable();
                mapc.extend_from_slice(&axis);
                starts.push(axis);
            }
            let p: usize = nblock.iter().product();
            let dist = Distribution::irregular(&dims, p, &mapc, &nblock).unwrap();
            assert_eq!(dist.grid(), &nblock[..]);
            check_invariants(&dist);
            for proc in 0..p {
                let (lo, hi) = dist.block(proc).unwrap();
                let mut rest = proc;
                for d in (0..ndim).rev() {
                    let k = rest % nblock[d];
                    rest /= nblock[d];
                    assert_eq!(lo[d], starts[d][k]);
                    let end = starts[d].get(k + 1).copied().unwrap_or(dims[d]);
                    assert_eq!(hi[d], end - 1);
                }
            }
        }
    }

    #[test]
    fn irregular_example() {
        // Axis 0 cut at 0, 2; axis 1 cut at 0, 1, 4.
        let dist = Distribution::irregular(&[5, 6], 6, &[0, 2, 0, 1, 4], &[2, 3]).unwrap();
        assert_eq!(dist.block(0), b(&[0, 0], &[1, 0]));
        assert_eq!(dist.block(2), b(&[0, 4], &[1, 5]));
        assert_eq!(dist.block(3), b(&[2, 0], &[4, 0]));
        assert_eq!(dist.block(5), b(&[2, 4], &[4, 5]));
        assert_eq!(dist.owner(&[3, 3]), Ok(4));
        assert_eq!(dist.local_index(&[3, 3]), Ok((4, 3 + 2)));
        assert_eq!(dist.local_len(4), 9);
    }

    // ---- Errors ----

    /// `(dims, nprocs, chunk, text the error must contain)`.
    type RegularCase<'a> = (&'a [usize], usize, Option<&'a [i64]>, &'a str);
    /// `(dims, nprocs, mapc, nblock, text the error must contain)`.
    type IrregularCase<'a> = (&'a [usize], usize, &'a [usize], &'a [usize], &'a str);

    #[test]
    fn regular_errors() {
        let cases: [RegularCase<'_>; 6] = [
            (&[], 4, None, "found 0"),
            (&[2; 8], 4, None, "found 8"),
            (&[4, 0], 4, None, "axis 1 has extent 0"),
            (&[4, 4], 0, None, "number of processes is 0"),
            (&[4, 4], 4, Some(&[1]), "`chunk` has 1 values"),
            (&[usize::MAX], 4, None, "too large"),
        ];
        for (dims, p, chunk, needle) in cases {
            let err = Distribution::regular(dims, p, chunk).unwrap_err().to_string();
            assert!(err.contains(needle), "{err:?} should mention {needle:?}");
            assert_eq!(err.chars().next(), err.chars().next().map(|c| c.to_ascii_lowercase()));
        }
        assert!(
            Distribution::regular(&[usize::MAX, 2], 1, None)
                .unwrap_err()
                .to_string()
                .contains("more elements than fit")
        );
        assert!(Distribution::regular(&[2; 7], 3, None).is_ok());
    }

    #[test]
    fn irregular_errors() {
        let cases: [IrregularCase<'_>; 9] = [
            (&[4], 2, &[0, 2], &[2, 1], "`nblock` has 2 values"),
            (&[4, 4], 2, &[0, 0, 2, 3], &[1, 2], "`mapc` has 4 starts"),
            (&[4, 4], 3, &[0, 0, 2], &[1, 2], "must equal the number of processes"),
            (&[4, 2], 3, &[0, 0, 1, 2], &[1, 3], "`nblock[1]` is 3"),
            (&[4, 2], 0, &[0, 0, 1], &[1, 2], "number of processes is 0"),
            (&[4, 4], 2, &[1, 0, 2], &[1, 2], "must start at 0"),
            (&[4, 4], 3, &[0, 0, 2, 2], &[1, 3], "not strictly increasing"),
            (&[4, 4], 2, &[0, 0, 4], &[1, 2], "outside the axis"),
            (&[4, 4], 0, &[], &[0, 1], "number of processes is 0"),
        ];
        for (dims, p, mapc, nblock, needle) in cases {
            let err = Distribution::irregular(dims, p, mapc, nblock).unwrap_err().to_string();
            assert!(err.contains(needle), "{err:?} should mention {needle:?}");
        }
        let err = Distribution::irregular(&[4, 4], 1, &[0, 0], &[0, 1]).unwrap_err().to_string();
        assert!(err.contains("`nblock[0]` is 0"), "{err}");
        assert!(Distribution::irregular(&[0], 1, &[0], &[1]).is_err());
    }

    #[test]
    fn subscript_errors_name_subscript_and_dims() {
        let dist = Distribution::regular(&[3, 4], 2, None).unwrap();
        let err = dist.owner(&[3, 0]).unwrap_err().to_string();
        assert!(err.contains("[3, 0]") && err.contains("[3, 4]"), "{err}");
        let err = dist.local_index(&[1]).unwrap_err().to_string();
        assert!(err.contains("[1]") && err.contains("[3, 4]"), "{err}");
    }

    #[test]
    fn prime_factors_ascending_with_multiplicity() {
        assert_eq!(prime_factors(1), Vec::<i64>::new());
        assert_eq!(prime_factors(12), vec![2, 2, 3]);
        assert_eq!(prime_factors(97), vec![97]);
        assert_eq!(prime_factors(360), vec![2, 2, 2, 3, 3, 5]);
        for n in 1..500 {
            let f = prime_factors(n);
            assert_eq!(f.iter().product::<i64>(), n);
            assert!(f.windows(2).all(|w| w[0] <= w[1]));
        }
    }
}
