/*
 * LU decomposition with partial pivoting on an M x N grid of processes: examples/book_lu.rs
 * translated to the standard BSPlib C API, so that scripts/book-peers can time the same
 * algorithm on MulticoreBSP for C beside bsp. Keep the two in step: the same matrix (the same
 * hash of the position), the same distribution, the same supersteps, the same check and the
 * same output.
 *
 *   book_lu [-p P] [n]
 *
 * P processes (default: $BSP_NPROCS, else bsp_nprocs()); n the order of the matrix (default
 * 40). The grid is the most square M x N with M <= N, process P(s, t) has pid s + t*M, and
 * element (i, j) lives on P(i mod M, j mod N) at local row i / M, local column j / N of a
 * row-major local matrix. Stage k has the three supersteps of the Rust version, one bsp_sync
 * each, and the whole factorisation 3n + 2 syncs (registering and unregistering the matrix
 * and the three receive buffers take one each, as registering the matrix does in Rust):
 *
 *   1. pivot search: in processor column k mod N, each process finds its candidate (the
 *      largest |a_ik|, i >= k, then the smallest i; with a_kk if it holds row k) and puts it
 *      to every process of the column; after the sync each combines the M candidates. The
 *      Rust version runs this allreduce in every processor column at once (the others
 *      combine nothing useful); here only column k mod N takes part.
 *   2. processor column k mod N puts r, a_rk, a_kk and its part of column k below the
 *      diagonal to every process of its processor row; after the sync every process computes
 *      the multipliers of its own rows (after the swap, row r holds a_kk).
 *   3. the holders of rows k and r swap their parts of them with two puts (whole local rows),
 *      and the holder of row r puts its part of it (columns j >= k) to every process of its
 *      processor column; after the sync, processor column k mod N stores the multipliers in
 *      column k and every process does its part of the rank-1 update.
 *
 * Puts are buffered (the standard BSPlib bsp_put copies the source when called), which is what
 * lets step 3 send row r before the swap lands. Every element sees the same operations in the
 * same order as in the Rust version (which never contracts a*b + c into a fused multiply-add:
 * build with -ffp-contract=off, as scripts/book-peers does), so the factors, the pivots and
 * the output line are identical. Process 0 gathers the factors and checks rows of PA against
 * rows of LU (all rows for n <= 200, every (n/64)-th and the last otherwise); the run aborts
 * unless max |PA - LU| / max |A| < 1e-10. stdout: the same line as the Rust example; stderr:
 * "book_lu: n=<n> p=<p> time <seconds> s", the time of the factorisation (registrations
 * included, as in Rust), from a sync before it to its end, on process 0.
 */
#include <bsp.h>

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t g_n = 40;
static int g_procs; /* 0: $BSP_NPROCS or bsp_nprocs() */

static void *alloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL)
        bsp_abort("book_lu: process %d: cannot allocate %zu bytes\n", (int)bsp_pid(), bytes);
    return p;
}

/* Element (i, j) of A: a pseudo-random number in [-1, 1), from a hash of its position. */
static double element(size_t n, size_t i, size_t j) {
    uint64_t x = (uint64_t)(i * n + j) ^ UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    x ^= x >> 31;
    return (double)(x >> 11) / (double)(UINT64_C(1) << 52) - 1.0;
}

/* How many of the indices 0..n are = s mod m. */
static size_t local_len(size_t n, size_t m, size_t s) { return (n + m - 1 - s) / m; }

/* The local index of the first own index >= k (of those = s mod m). */
static size_t first_from(size_t k, size_t m, size_t s) { return k + m - 1 >= s ? (k + m - 1 - s) / m : 0; }

/* A candidate of the pivot search: |a_ik| and i, a_ik itself, and a_kk if held. */
typedef struct {
    double magnitude;
    uint64_t index;
    double value, diagonal;
    uint64_t holds_diagonal;
} search_t;

static search_t search_none(void) { return (search_t){-1.0, UINT64_MAX, 0.0, 0.0, 0}; }

static search_t search_of(size_t i, double x, size_t k) {
    return (search_t){fabs(x), (uint64_t)i, x, x, i == k};
}

/* The better candidate (the larger |a_ik|, then the smaller i) and the diagonal held. */
static search_t combine(search_t a, search_t b) {
    search_t c = a;
    if (b.magnitude > a.magnitude || (b.magnitude == a.magnitude && b.index < a.index)) {
        c.magnitude = b.magnitude, c.index = b.index;
    }
    c.value = c.magnitude == b.magnitude && c.index == b.index ? b.value : a.value;
    if (b.holds_diagonal == 1) {
        c.diagonal = b.diagonal, c.holds_diagonal = 1;
    } else {
        c.diagonal = a.diagonal, c.holds_diagonal = a.holds_diagonal;
    }
    return c;
}

/* Factors PA = LU in place: a holds this process's rows x cols part; pivots gets all n row
 * swaps on every process. 3n + 2 syncs. */
static void lu(double *a, size_t *pivots, size_t n, size_t m, size_t nn, size_t s, size_t t) {
    size_t rows = local_len(n, m, s), cols = local_len(n, nn, t);
    search_t *found_by = alloc(m * sizeof(search_t)); /* slot q: the candidate of P(q, t) */
    double *column = alloc((rows + 3) * sizeof(double)); /* r, a_rk, a_kk, column k below */
    double *pivot_row = alloc(cols * sizeof(double));
    double *multipliers = alloc(rows * sizeof(double));
    bsp_push_reg(a, rows * cols * sizeof(double));
    bsp_push_reg(found_by, m * sizeof(search_t));
    bsp_push_reg(column, (rows + 3) * sizeof(double));
    bsp_push_reg(pivot_row, cols * sizeof(double));
    bsp_sync();
#define PID(q, c) ((bsp_pid_t)((q) + (c) * m))
    for (size_t k = 0; k < n; k++) {
        size_t ks = k % m, kt = k % nn, kc = k / nn;
        size_t row0 = first_from(k, m, s), col0 = first_from(k, nn, t), below = first_from(k + 1, m, s);

        /* 1. The pivot search in processor column kt. */
        if (t == kt) {
            search_t mine = search_none();
            for (size_t l = row0; l < rows; l++)
                mine = combine(mine, search_of(l * m + s, a[l * cols + kc], k));
            for (size_t q = 0; q < m; q++) {
                if (q == s)
                    found_by[s] = mine;
                else
                    bsp_put(PID(q, t), &mine, found_by, s * sizeof(search_t), sizeof(search_t));
            }
        }
        bsp_sync();

        /* 2. Processor column kt sends r, a_rk, a_kk and its part of column k below the
         * diagonal (before the swap) along its processor row. */
        size_t len = 3 + rows - below;
        if (t == kt) {
            search_t found = search_none();
            for (size_t q = 0; q < m; q++)
                found = combine(found, found_by[q]);
            column[0] = (double)found.index, column[1] = found.value, column[2] = found.diagonal;
            for (size_t l = below; l < rows; l++)
                column[3 + l - below] = a[l * cols + kc];
            for (size_t c = 0; c < nn; c++)
                if (c != t)
                    bsp_put(PID(s, c), column, column, 0, len * sizeof(double));
        }
        bsp_sync();
        size_t r = (size_t)column[0];
        double pivot = column[1], diagonal = column[2];
        if (pivot == 0.0)
            bsp_abort("book_lu: the matrix is singular (no pivot in column %zu)\n", k);
        pivots[k] = r;
        for (size_t q = 0; q + 3 < len; q++) /* after the swap, row r holds the old a_kk */
            multipliers[q] = ((below + q) * m + s == r ? diagonal : column[3 + q]) / pivot;

        /* 3. Rows k and r change places (whole local rows); the holder of row r sends its part
         * of it, columns j >= k, down its processor column. */
        size_t rs = r % m, lk = k / m, lr = r / m;
        if (s == ks && s == rs && lk != lr) {
            for (size_t j = 0; j < cols; j++) {
                double x = a[lk * cols + j];
                a[lk * cols + j] = a[lr * cols + j];
                a[lr * cols + j] = x;
            }
        }
        if (s == rs) {
            size_t at = s == ks ? lk : lr; /* where row r is until the sync */
            memcpy(pivot_row, a + at * cols + col0, (cols - col0) * sizeof(double));
            for (size_t q = 0; q < m; q++)
                if (q != s)
                    bsp_put(PID(q, t), pivot_row, pivot_row, 0, (cols - col0) * sizeof(double));
        }
        if (s == ks && s != rs)
            bsp_put(PID(rs, t), a + lk * cols, a, lr * cols * sizeof(double), cols * sizeof(double));
        if (s == rs && s != ks)
            bsp_put(PID(ks, t), a + lr * cols, a, lk * cols * sizeof(double), cols * sizeof(double));
        bsp_sync();

        /* The multipliers into column k, and the rank-1 update of the own i > k, j > k: four
         * rows at a time (each u_j loaded once for the four), then the last ones alone. */
        size_t from = first_from(k + 1, nn, t), w = cols - from, l = below;
        const double *restrict u = pivot_row + (from - col0);
        if (t == kt)
            for (size_t q = below; q < rows; q++)
                a[q * cols + kc] = multipliers[q - below];
        for (; l + 4 <= rows; l += 4) {
            double *restrict r0 = a + l * cols + from, *restrict r1 = r0 + cols;
            double *restrict r2 = r1 + cols, *restrict r3 = r2 + cols;
            const double *x = multipliers + (l - below);
            double x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3];
            for (size_t j = 0; j < w; j++) {
                double y = u[j];
                r0[j] -= x0 * y;
                r1[j] -= x1 * y;
                r2[j] -= x2 * y;
                r3[j] -= x3 * y;
            }
        }
        for (; l < rows; l++) {
            double *restrict row = a + l * cols + from, x = multipliers[l - below];
            for (size_t j = 0; j < w; j++)
                row[j] -= x * u[j];
        }
    }
#undef PID
    bsp_pop_reg(pivot_row);
    bsp_pop_reg(column);
    bsp_pop_reg(found_by);
    bsp_pop_reg(a);
    bsp_sync();
    free(found_by);
    free(column);
    free(pivot_row);
    free(multipliers);
}

/* max |PA - LU| / max |A| over rows 0, step, 2 step, ... and n - 1 of the whole factors f. */
static double residual(const double *f, const size_t *pivots, size_t n, size_t step) {
    size_t *perm = malloc(n * sizeof(size_t)); /* row i of PA is row perm[i] of A */
    double *lu = malloc(n * sizeof(double));
    if (perm == NULL || lu == NULL)
        bsp_abort("book_lu: cannot allocate the check's %zu rows\n", n);
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    for (size_t k = 0; k < n; k++) {
        size_t x = perm[k];
        perm[k] = perm[pivots[k]];
        perm[pivots[k]] = x;
    }
    double worst = 0.0, largest = 0.0;
    for (size_t c = 0;; c += step) {
        size_t i = c < n ? c : n - 1; /* the rows c, then row n - 1 once more */
        memcpy(lu, f + i * n, n * sizeof(double));
        memset(lu, 0, i * sizeof(double));
        for (size_t k = 0; k < i; k++) {
            double l = f[i * n + k];
            for (size_t j = k; j < n; j++)
                lu[j] += l * f[k * n + j];
        }
        for (size_t j = 0; j < n; j++) {
            double aij = element(n, perm[i], j);
            worst = fmax(worst, fabs(aij - lu[j]));
            largest = fmax(largest, fabs(aij));
        }
        if (c >= n)
            break;
    }
    free(perm);
    free(lu);
    return worst / largest;
}

static void spmd(void) {
    bsp_begin(g_procs ? (bsp_pid_t)g_procs : bsp_nprocs());
    size_t n = g_n, p = bsp_nprocs(), pid = bsp_pid();
    size_t m = 1;
    for (size_t q = 1; q * q <= p; q++)
        if (p % q == 0)
            m = q;
    size_t nn = p / m, s = pid % m, t = pid / m;
    size_t rows = local_len(n, m, s), cols = local_len(n, nn, t);
    double *a = alloc(rows * cols * sizeof(double));
    for (size_t l = 0; l < rows; l++)
        for (size_t c = 0; c < cols; c++)
            a[l * cols + c] = element(n, l * m + s, c * nn + t);
    size_t *pivots = alloc(n * sizeof(size_t));

    bsp_sync();
    double start = bsp_time();
    lu(a, pivots, n, m, nn, s, t);
    if (pid == 0)
        fprintf(stderr, "book_lu: n=%zu p=%zu time %.6f s\n", n, p, bsp_time() - start);

    /* Process 0 gathers the parts, process q's after those of processes 0..q-1. */
    double *parts = alloc(pid == 0 ? n * n * sizeof(double) : sizeof(double));
    bsp_push_reg(parts, pid == 0 ? n * n * sizeof(double) : 0);
    bsp_sync();
    size_t offset = 0;
    for (size_t q = 0; q < pid; q++)
        offset += local_len(n, m, q % m) * local_len(n, nn, q / m);
    if (rows * cols > 0)
        bsp_put(0, a, parts, offset * sizeof(double), rows * cols * sizeof(double));
    bsp_sync();
    bsp_pop_reg(parts);
    if (pid == 0) {
        double *whole = alloc(n * n * sizeof(double));
        const double *part = parts;
        for (size_t q = 0; q < p; q++) {
            size_t qs = q % m, qt = q / m, qrows = local_len(n, m, qs), qcols = local_len(n, nn, qt);
            for (size_t l = 0; l < qrows; l++)
                for (size_t c = 0; c < qcols; c++)
                    whole[(l * m + qs) * n + c * nn + qt] = part[l * qcols + c];
            part += qrows * qcols;
        }
        double error = residual(whole, pivots, n, n <= 200 ? 1 : n / 64);
        if (!(error < 1e-10)) /* NaN too */
            bsp_abort("book_lu: max |PA - LU| / max |A| = %e, not below 1e-10\n", error);
        uint64_t checksum = 0;
        for (size_t k = 0; k < n; k++)
            checksum = checksum * 31 + (uint64_t)(k ^ pivots[k]);
        printf("book_lu ok, n = %zu, first pivots [", n);
        for (size_t k = 0; k < n && k < 8; k++)
            printf(k ? ", %zu" : "%zu", pivots[k]);
        printf("], pivot checksum %" PRIu64 ", max |PA - LU| / max |A| < 1e-10\n", checksum);
        fflush(stdout);
        free(whole);
    }
    bsp_sync(); /* the deregistration of parts */
    free(parts);
    free(a);
    free(pivots);
    bsp_end();
}

/* A positive whole number, or 0. */
static size_t positive(const char *text) {
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    return text[0] >= '0' && text[0] <= '9' && *end == '\0' ? (size_t)v : 0;
}

int main(int argc, char **argv) {
    const char *env = getenv("BSP_NPROCS");
    if (env != NULL && *env != '\0' && (g_procs = (int)positive(env)) == 0) {
        fprintf(stderr, "book_lu: BSP_NPROCS=%s is not a number of processes\n", env);
        return 2;
    }
    int free_args = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-p") == 0 && i + 1 < argc) {
            if ((g_procs = (int)positive(argv[++i])) == 0) {
                fprintf(stderr, "book_lu: -p %s is not a number of processes\n", argv[i]);
                return 2;
            }
        } else if (free_args++ == 0 && (g_n = positive(argv[i])) > 0) {
        } else {
            fprintf(stderr, "usage: %s [-p P] [n]; the argument `%s` is not a matrix order\n", argv[0], argv[i]);
            return 2;
        }
    }
    bsp_init(spmd, argc, argv);
    spmd();
    return 0;
}
