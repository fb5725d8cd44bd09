/*
 * Sparse matrix-vector multiplication u = A v with fan-out and fan-in: examples/book_bspmv.rs
 * translated to the standard BSPlib C API, so that scripts/book-peers can time the same
 * algorithm on MulticoreBSP for C beside bsp. Keep the two in step: the same matrix and vector
 * (the same hash), the same distribution, the same init, the same supersteps, the same check
 * and the same output.
 *
 *   book_bspmv [-p P] [n]
 *
 * P processes (default: $BSP_NPROCS, else bsp_nprocs()); n the order of the matrix (default
 * 1000). Row i has a_ii = 8 and OFF_DIAGONAL more nonzeros in pseudo-random columns, v_j =
 * 1 + j mod 5. On an M x N grid (the most square, M >= N, pid s + t*M): a_ij on
 * P(i mod M, j mod N), v_j on P((j div N) mod M, j mod N), u_i on P(i mod M, (i div M) mod N).
 *
 * init (untimed, as in Rust): the owners of v_j and u_i put "pid << 32 | local index" into a
 * directory spread over the processes in blocks of ceil(n/p); each process gets the entries of
 * its columns and rows (one-element puts and gets; 4 syncs, the last one shared with the
 * registration of v and u, which Rust does in a sync of its own). The fan-out buffer follows
 * the own part of v; the fan-out and the rows of other processes' u_i are ordered by owner and
 * local index there, and the nonzeros are stored as compressed rows (uint32_t columns into
 * that buffer), own rows first. The own u_i with a local row come first in u, in the order of
 * those rows, so that own row r writes u[r].
 *
 * A product has the book's four supersteps and 2 syncs, as in Rust:
 *   0. fan-out: one 8-byte bsp_get per needed component of another process;
 *   1. local multiply: a partial sum per local row (own u_i written in place);
 *   2. fan-in: the partial sum of a row whose u_i another process owns goes to it. Rust uses
 *      a combining put (put_combine with +), which standard BSPlib does not have; here it is
 *      one bsp_send per row (payload: the local index there and the sum), as the book does;
 *   3. sum up: after the sync, each process adds the messages into its u (Rust: at the sync).
 * Rust makes the fan-out's gets through one get batch (get_batch, get_each), and its runtime
 * merges consecutive one-element gets and consecutive combining puts into runs; MulticoreBSP
 * serves each request by itself.
 *
 * All sums are of small integers, so exact in any order: after PRODUCTS products each process
 * compares its u_i with the row sums of A; process 0 collects the counts and sums, aborts on
 * any difference, prints the Rust example's stdout line, and on stderr
 * "book_bspmv: n=<n> p=<p> time <seconds> s" (the products, on process 0) and the number of
 * one-element gets and sends (puts in Rust) per product.
 */
#include <bsp.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OFF_DIAGONAL 6 /* nonzeros per row besides the diagonal */
#define PRODUCTS 20    /* products timed */

static size_t g_n = 1000;
static int g_procs; /* 0: $BSP_NPROCS or bsp_nprocs() */

static void *alloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL)
        bsp_abort("book_bspmv: process %d: cannot allocate %zu bytes\n", (int)bsp_pid(), bytes);
    return p;
}

static uint64_t hash(uint64_t x) {
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

/* Nonzero e = 0..OFF_DIAGONAL of row i: e = 0 is the diagonal (columns may repeat). */
static size_t entry_column(size_t n, size_t i, int e) {
    return e == 0 ? i : (size_t)(hash(((uint64_t)i << 8) + (uint64_t)e) >> 8) % n;
}
static double entry_value(size_t i, int e) {
    static const double values[6] = {-3.0, -2.0, -1.0, 1.0, 2.0, 3.0};
    return e == 0 ? 8.0 : values[(hash(((uint64_t)i << 8) + (uint64_t)e) & 0xff) % 6];
}

static double v_of(size_t j) { return (double)(1 + j % 5); }

/* The distribution on the M x N grid. */
static _Thread_local size_t g_m, g_nn; /* per process: MulticoreBSP runs them as threads */
static size_t owner_nonzero(size_t i, size_t j) { return i % g_m + (j % g_nn) * g_m; }
static size_t owner_v(size_t j) { return (j / g_nn) % g_m + (j % g_nn) * g_m; }
static size_t owner_u(size_t i) { return i % g_m + ((i / g_m) % g_nn) * g_m; }

/* A place: owner and local index there, from a directory entry. */
typedef struct {
    size_t pid, index;
} place_t;

static place_t split(uint64_t e) { return (place_t){(size_t)(e >> 32), (size_t)(e & 0xffffffffu)}; }

static _Thread_local const place_t *g_places; /* for the comparisons below */
static _Thread_local size_t g_me;

static int cmp_place(const place_t *x, const place_t *y) {
    return x->pid != y->pid ? (x->pid > y->pid) - (x->pid < y->pid) : (x->index > y->index) - (x->index < y->index);
}
static int cmp_remote(const void *a, const void *b) {
    return cmp_place(&g_places[*(const size_t *)a], &g_places[*(const size_t *)b]);
}
static int cmp_row(const void *a, const void *b) { /* own u first, then by place */
    const place_t *x = &g_places[*(const size_t *)a], *y = &g_places[*(const size_t *)b];
    int xo = x->pid != g_me, yo = y->pid != g_me;
    return xo != yo ? xo - yo : cmp_place(x, y);
}
static int cmp_size(const void *a, const void *b) {
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* One process's part of the product. */
typedef struct {
    size_t *starts; /* row r: starts[r]..starts[r + 1] of columns and values */
    uint32_t *columns;
    double *values;
    size_t nrows, own, nfan_in, nfan_out, own_v, own_u;
    /* rows 0..own write u[0..own]; u[own..own_u] is written by no local row */
    place_t *fan_in;    /* rows own..nrows: where their u_i is */
    place_t *fan_out;   /* k: get v from there into buffer position own_v + k */
} local_t;

/* A fan-in message: where in u, and the partial sum. */
typedef struct {
    uint64_t index;
    double sum;
} contribution_t;

/* The init: the local part of A and where the vector components it needs live. Returns the
 * own v and u indices in *own_v, *own_u (counts in *nv, *nu). */
static local_t init(size_t n, size_t **own_v, size_t *nv, size_t **own_u, size_t *nu) {
    size_t me = bsp_pid(), p = bsp_nprocs();
    local_t a;
    memset(&a, 0, sizeof a);
    /* The own nonzeros, by row, in the order of generation. */
    size_t cap = 1024, nz = 0;
    size_t *nz_i = alloc(cap * sizeof(size_t)), *nz_j = alloc(cap * sizeof(size_t));
    double *nz_a = alloc(cap * sizeof(double));
    for (size_t i = 0; i < n; i++) {
        for (int e = 0; e <= OFF_DIAGONAL; e++) {
            size_t j = entry_column(n, i, e);
            if (owner_nonzero(i, j) != me)
                continue;
            if (nz == cap) {
                cap *= 2;
                nz_i = realloc(nz_i, cap * sizeof(size_t)), nz_j = realloc(nz_j, cap * sizeof(size_t));
                nz_a = realloc(nz_a, cap * sizeof(double));
                if (nz_i == NULL || nz_j == NULL || nz_a == NULL)
                    bsp_abort("book_bspmv: process %zu: cannot allocate %zu nonzeros\n", me, cap);
            }
            nz_i[nz] = i, nz_j[nz] = j, nz_a[nz] = entry_value(i, e), nz++;
        }
    }
    size_t *columns = alloc(nz * sizeof(size_t)), *rows = alloc(nz * sizeof(size_t)), nc = 0, nr = 0;
    memcpy(columns, nz_j, nz * sizeof(size_t));
    qsort(columns, nz, sizeof(size_t), cmp_size);
    for (size_t q = 0; q < nz; q++) {
        if (nc == 0 || columns[nc - 1] != columns[q])
            columns[nc++] = columns[q];
        if (nr == 0 || rows[nr - 1] != nz_i[q])
            rows[nr++] = nz_i[q];
    }
    size_t *ov = alloc(n * sizeof(size_t)), *ou = alloc(n * sizeof(size_t)), cv = 0, cu = 0;
    for (size_t j = 0; j < n; j++)
        if (owner_v(j) == me)
            ov[cv++] = j;
    /* The own u_i with a local row first, so that those rows write the start of u in order. */
    for (int with_row = 1; with_row >= 0; with_row--)
        for (size_t i = 0; i < n; i++)
            if (owner_u(i) == me && (bsearch(&i, rows, nr, sizeof(size_t), cmp_size) != NULL) == with_row)
                ou[cu++] = i;

    /* The directory: entry j of v (and i of u) on process j / b. */
    size_t b = (n + p - 1) / p;
    b = b ? b : 1;
    uint64_t *dir = alloc(2 * b * sizeof(uint64_t));
    memset(dir, 0, 2 * b * sizeof(uint64_t));
    bsp_push_reg(dir, 2 * b * sizeof(uint64_t));
    bsp_sync();
    for (size_t l = 0; l < cv; l++) {
        uint64_t e = (uint64_t)me << 32 | l;
        bsp_put(ov[l] / b, &e, dir, (ov[l] % b) * sizeof(uint64_t), sizeof(uint64_t));
    }
    for (size_t l = 0; l < cu; l++) {
        uint64_t e = (uint64_t)me << 32 | l;
        bsp_put(ou[l] / b, &e, dir, (b + ou[l] % b) * sizeof(uint64_t), sizeof(uint64_t));
    }
    bsp_sync();
    uint64_t *col_at = alloc(nc * sizeof(uint64_t)), *row_at = alloc(nr * sizeof(uint64_t));
    for (size_t k = 0; k < nc; k++)
        bsp_get(columns[k] / b, dir, (columns[k] % b) * sizeof(uint64_t), col_at + k, sizeof(uint64_t));
    for (size_t k = 0; k < nr; k++)
        bsp_get(rows[k] / b, dir, (b + rows[k] % b) * sizeof(uint64_t), row_at + k, sizeof(uint64_t));
    bsp_sync();
    bsp_pop_reg(dir); /* takes effect at the next sync, the registration of v and u */

    /* The fan-out buffer: the own v components, then the others by owner and index there. */
    place_t *places = alloc(nc * sizeof(place_t));
    size_t *remote = alloc(nc * sizeof(size_t)), nremote = 0;
    uint32_t *position = alloc(nc * sizeof(uint32_t));
    for (size_t k = 0; k < nc; k++) {
        places[k] = split(col_at[k]);
        position[k] = (uint32_t)places[k].index;
        if (places[k].pid != me)
            remote[nremote++] = k;
    }
    g_places = places, g_me = me;
    qsort(remote, nremote, sizeof(size_t), cmp_remote);
    a.fan_out = alloc(nremote * sizeof(place_t));
    for (size_t to = 0; to < nremote; to++) {
        position[remote[to]] = (uint32_t)(cv + to);
        a.fan_out[to] = places[remote[to]];
    }
    a.nfan_out = nremote, a.own_v = cv;

    /* Rows with an own u_i first, then the others, each by owner and index there. */
    place_t *owner = alloc(nr * sizeof(place_t));
    size_t *order = alloc(nr * sizeof(size_t));
    for (size_t k = 0; k < nr; k++)
        owner[k] = split(row_at[k]), order[k] = k;
    g_places = owner;
    qsort(order, nr, sizeof(size_t), cmp_row);
    a.starts = alloc((nr + 1) * sizeof(size_t));
    a.columns = alloc(nz * sizeof(uint32_t));
    a.values = alloc(nz * sizeof(double));
    a.fan_in = alloc(nr * sizeof(place_t));
    a.nrows = nr, a.own_u = cu;
    size_t filled = 0;
    a.starts[0] = 0;
    for (size_t r = 0; r < nr; r++) {
        size_t k = order[r], i = rows[k], lo = 0, hi = nz;
        while (lo < hi) { /* the first nonzero of row i */
            size_t mid = lo + (hi - lo) / 2;
            if (nz_i[mid] < i)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t q = lo; q < nz && nz_i[q] == i; q++) {
            size_t *c = bsearch(&nz_j[q], columns, nc, sizeof(size_t), cmp_size);
            a.columns[filled] = position[c - columns];
            a.values[filled++] = nz_a[q];
        }
        a.starts[r + 1] = filled;
        if (owner[k].pid == me) /* owner[k].index == a.own: own rows write u in order */
            a.own++;
        else
            a.fan_in[a.nfan_in++] = owner[k];
    }
    free(nz_i), free(nz_j), free(nz_a), free(dir), free(columns), free(rows), free(col_at), free(row_at);
    free(places), free(remote), free(position), free(owner), free(order);
    *own_v = ov, *nv = cv, *own_u = ou, *nu = cu;
    return a;
}

/* The partial sum of local row r. */
static inline double row_sum(const local_t *a, const double *x, size_t r) {
    double sum = 0.0;
    for (size_t q = a->starts[r]; q < a->starts[r + 1]; q++)
        sum += a->values[q] * x[a->columns[q]];
    return sum;
}

/* u = A v: xv holds the own part of v followed by room for the fan-out. 2 syncs. */
static void product(const local_t *a, double *xv, double *u) {
    /* Superstep 0: the fan-out. */
    for (size_t k = 0; k < a->nfan_out; k++)
        bsp_get((bsp_pid_t)a->fan_out[k].pid, xv, a->fan_out[k].index * sizeof(double), xv + a->own_v + k,
                sizeof(double));
    bsp_sync();
    /* Superstep 1: the local multiply, own u_i in place; superstep 2: the fan-in. */
    for (size_t r = 0; r < a->own; r++)
        u[r] = row_sum(a, xv, r);
    for (size_t l = a->own; l < a->own_u; l++)
        u[l] = 0.0;
    for (size_t k = 0; k < a->nfan_in; k++) {
        contribution_t c = {a->fan_in[k].index, row_sum(a, xv, a->own + k)};
        bsp_send((bsp_pid_t)a->fan_in[k].pid, NULL, &c, sizeof c);
    }
    bsp_sync();
    /* Superstep 3: the sums. */
    bsp_nprocs_t messages;
    bsp_size_t bytes;
    bsp_qsize(&messages, &bytes);
    for (bsp_nprocs_t q = 0; q < messages; q++) {
        contribution_t c;
        bsp_move(&c, sizeof c);
        u[c.index] += c.sum;
    }
}

/* A double as Rust's Display prints it, for the whole numbers this program prints. */
static void print_number(double x) {
    if (x == floor(x) && fabs(x) < 1e17)
        printf("%.0f", x);
    else
        printf("%.17g", x);
}

static void spmd(void) {
    bsp_begin(g_procs ? (bsp_pid_t)g_procs : bsp_nprocs());
    size_t n = g_n, p = bsp_nprocs(), me = bsp_pid();
    g_nn = 1;
    for (size_t q = 1; q * q <= p; q++)
        if (p % q == 0)
            g_nn = q;
    g_m = p / g_nn;
    bsp_size_t tagsize = 0;
    bsp_set_tagsize(&tagsize);
    size_t *own_v, *own_u, nv, nu;
    local_t a = init(n, &own_v, &nv, &own_u, &nu);
    double *xv = alloc((a.own_v + a.nfan_out) * sizeof(double)), *u = alloc(nu * sizeof(double));
    for (size_t l = 0; l < nv; l++)
        xv[l] = v_of(own_v[l]);
    for (size_t k = 0; k < a.nfan_out; k++)
        xv[nv + k] = 0.0;
    for (size_t l = 0; l < nu; l++)
        u[l] = 0.0;
    bsp_push_reg(xv, (a.own_v + a.nfan_out) * sizeof(double));
    bsp_push_reg(u, nu * sizeof(double));
    bsp_sync();

    double start = bsp_time();
    for (int k = 0; k < PRODUCTS; k++)
        product(&a, xv, u);
    if (me == 0)
        fprintf(stderr, "book_bspmv: n=%zu p=%zu time %.6f s\n", n, p, bsp_time() - start);

    /* The check: every own u_i against its row of A, exactly. Process 0 adds up the figures
     * of all processes (wrong, nonzeros, sum of u, weighted sum, gets, sends). */
    double mine[6] = {0.0, (double)a.starts[a.nrows], 0.0, 0.0, (double)a.nfan_out, (double)a.nfan_in};
    for (size_t l = 0; l < nu; l++) {
        size_t i = own_u[l];
        double expect = 0.0;
        for (int e = 0; e <= OFF_DIAGONAL; e++)
            expect += entry_value(i, e) * v_of(entry_column(n, i, e));
        mine[0] += expect != u[l];
        mine[2] += u[l];
        mine[3] += u[l] * (double)(1 + i % 7);
    }
    double *all = alloc(p * sizeof(mine));
    bsp_push_reg(all, p * sizeof(mine));
    bsp_sync();
    bsp_put(0, mine, all, me * sizeof(mine), sizeof(mine));
    bsp_sync();
    if (me == 0) {
        double totals[6] = {0};
        for (size_t q = 0; q < p; q++)
            for (int f = 0; f < 6; f++)
                totals[f] += all[q * 6 + f];
        if (totals[0] != 0.0)
            bsp_abort("book_bspmv: %.0f components of u differ from the sequential product\n", totals[0]);
        printf("book_bspmv ok, n = %zu, ", n);
        print_number(totals[1]);
        printf(" nonzeros, %d products, sum of u = ", PRODUCTS);
        print_number(totals[2]);
        printf(", checksum ");
        print_number(totals[3]);
        printf("\n");
        fflush(stdout);
        fprintf(stderr, "book_bspmv: %.0f single-element gets and %.0f puts per product\n", totals[4], totals[5]);
    }
    bsp_pop_reg(all);
    bsp_pop_reg(u);
    bsp_pop_reg(xv);
    bsp_sync();
    free(all), free(xv), free(u), free(own_v), free(own_u);
    free(a.starts), free(a.columns), free(a.values), free(a.fan_in);
    free(a.fan_out);
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
        fprintf(stderr, "book_bspmv: BSP_NPROCS=%s is not a number of processes\n", env);
        return 2;
    }
    int free_args = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-p") == 0 && i + 1 < argc) {
            if ((g_procs = (int)positive(argv[++i])) == 0) {
                fprintf(stderr, "book_bspmv: -p %s is not a number of processes\n", argv[i]);
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
