/*
 * The peer-comparison micro-benchmark, BSPlib side (run by scripts/peers).
 *
 * One program against the standard BSPlib C API, linked unchanged with MulticoreBSP for C,
 * LPF's BSPlib layer (pthread engine) and BSPonMPI. benches/peers.rs makes exactly the same
 * measurements with bsp; keep the two in step (same constants, same loops, same figures).
 *
 *   bsplib_bench [-p P] [--quick]
 *
 * P processes (default: bsp_nprocs(), which under mpirun is the number of ranks); at least 2.
 * Every process takes part in every measurement; process 0 times and prints one figure per
 * line, "name value" (the names below), for scripts/peers to collect:
 *
 *   sync_us    an empty superstep: the median over 21 blocks (after one more to warm up) of
 *              1000 consecutive bsp_sync()s.
 *   g_ns l_us  bspbench's method: for h = 0..256, 100 supersteps of h one-double puts
 *              spread cyclically over the other processes (to (s+1+i mod (p-1)) mod p, at
 *              index s + (i div (p-1))·p); T(h) fitted by least squares to g·h + l over
 *              h = p..256 (in seconds here, not flops).
 *   t1_us t16_us t256_us  T(h) itself at h = 1, 16, 256 (µs per superstep; not with --quick).
 *   puts_us    a superstep of 1000 one-word (8-byte) puts to (s+1) mod p, word i to index i:
 *              the median over 21 blocks (after one to warm up) of 50 supersteps.
 *   put_gbs hpput_gbs get_gbs hpget_gbs
 *              8 MiB per process to (or, for the gets, from) pid (s+1) mod p, every process at
 *              once, one transfer per superstep: 8 MiB / the median time of 40 supersteps
 *              (after 3 to warm up), in GB/s per process.
 *
 * Every transfer is checked: a wrong word aborts the run. --quick shrinks the repetition
 * counts (a smoke test of the harness; its figures mean nothing).
 */
#include <bsp.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LARGE_BYTES (8 << 20) /* an int: the standard BSPlib sizes and offsets are ints */
#define LARGE_WORDS ((size_t)LARGE_BYTES / sizeof(uint64_t))
#define WARM 3 /* untimed rounds before every timed series */

static int g_syncs = 1000, g_sync_blocks = 21;
static int g_maxh = 256, g_niters = 100;
static int g_puts = 1000, g_put_steps = 50, g_put_blocks = 21;
static int g_large_steps = 40;
static int g_procs; /* 0: bsp_nprocs() */

static void *alloc(size_t bytes) {
    void *p = malloc(bytes);
    if (p == NULL)
        bsp_abort("bsplib_bench: process %d: cannot allocate %zu bytes\n", (int)bsp_pid(), bytes);
    return p;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void report(const char *name, double value) {
    if (bsp_pid() == 0) {
        printf("%s %.6g\n", name, value);
        fflush(stdout);
    }
}

static void bench_sync(void) {
    double *t = alloc(sizeof(double) * (size_t)g_sync_blocks);
    for (int b = 0; b <= g_sync_blocks; b++) { /* block 0 warms up */
        double t0 = bsp_time();
        for (int i = 0; i < g_syncs; i++)
            bsp_sync();
        if (b > 0)
            t[b - 1] = (bsp_time() - t0) / g_syncs;
    }
    report("sync_us", 1e6 * median(t, g_sync_blocks));
    free(t);
}

static void bench_gl(void) {
    int p = (int)bsp_nprocs(), s = (int)bsp_pid();
    double *src = alloc(sizeof(double) * (size_t)g_maxh);
    double *dest = alloc(sizeof(double) * (size_t)(p * g_maxh));
    double *t = alloc(sizeof(double) * (size_t)(g_maxh + 1));
    for (int i = 0; i < g_maxh; i++)
        src[i] = i;
    memset(dest, 0, sizeof(double) * (size_t)(p * g_maxh));
    bsp_push_reg(dest, (int)sizeof(double) * p * g_maxh);
    bsp_sync();
    for (int h = 0; h <= g_maxh; h++) {
        bsp_sync();
        double t0 = bsp_time();
        for (int it = 0; it < g_niters; it++) {
            for (int i = 0; i < h; i++) {
                int pid = (s + 1 + i % (p - 1)) % p, index = s + (i / (p - 1)) * p;
                bsp_put(pid, &src[i], dest, (int)sizeof(double) * index, (int)sizeof(double));
            }
            bsp_sync();
        }
        t[h] = (bsp_time() - t0) / g_niters;
    }
    /* What the last h = g_maxh supersteps left here: word i of process q, if it came here. */
    for (int q = 0; q < p; q++)
        for (int i = 0; q != s && i < g_maxh; i++)
            if ((q + 1 + i % (p - 1)) % p == s && dest[q + (i / (p - 1)) * p] != (double)i)
                bsp_abort("bsplib_bench: process %d: word %d of process %d did not arrive\n", s, i, q);
    /* Least squares T(h) = g·h + l over h = p..g_maxh. */
    double n = 0, sh = 0, st = 0, shh = 0, sht = 0;
    for (int h = p; h <= g_maxh; h++) {
        n += 1;
        sh += h;
        st += t[h];
        shh += (double)h * h;
        sht += h * t[h];
    }
    double g = (n * sht - sh * st) / (n * shh - sh * sh), l = (st - g * sh) / n;
    report("g_ns", 1e9 * g);
    report("l_us", 1e6 * l);
    if (g_maxh >= 256) {
        report("t1_us", 1e6 * t[1]);
        report("t16_us", 1e6 * t[16]);
        report("t256_us", 1e6 * t[256]);
    }
    bsp_pop_reg(dest);
    bsp_sync();
    free(src);
    free(dest);
    free(t);
}

static void bench_puts(void) {
    int p = (int)bsp_nprocs(), s = (int)bsp_pid();
    int next = (s + 1) % p;
    uint64_t *dst = alloc(sizeof(uint64_t) * (size_t)g_puts);
    double *t = alloc(sizeof(double) * (size_t)g_put_blocks);
    memset(dst, 0, sizeof(uint64_t) * (size_t)g_puts);
    bsp_push_reg(dst, (int)sizeof(uint64_t) * g_puts);
    bsp_sync();
    uint64_t step = 0;
    for (int b = 0; b <= g_put_blocks; b++) { /* block 0 warms up */
        double t0 = bsp_time();
        for (int k = 0; k < g_put_steps; k++, step++) {
            for (int i = 0; i < g_puts; i++) {
                uint64_t w = step * (uint64_t)g_puts + (uint64_t)i;
                bsp_put(next, &w, dst, (int)sizeof(uint64_t) * i, (int)sizeof(uint64_t));
            }
            bsp_sync();
        }
        if (b > 0)
            t[b - 1] = (bsp_time() - t0) / g_put_steps;
    }
    uint64_t last = (step - 1) * (uint64_t)g_puts + (uint64_t)(g_puts - 1);
    if (dst[g_puts - 1] != last)
        bsp_abort("bsplib_bench: process %d: last put word is %llu, expected %llu\n", s,
                  (unsigned long long)dst[g_puts - 1], (unsigned long long)last);
    report("puts_us", 1e6 * median(t, g_put_blocks));
    bsp_pop_reg(dst);
    bsp_sync();
    free(dst);
    free(t);
}

enum kind { PUT, HPPUT, GET, HPGET };

static void bench_large(void) {
    static const char *names[] = {"put_gbs", "hpput_gbs", "get_gbs", "hpget_gbs"};
    int p = (int)bsp_nprocs(), s = (int)bsp_pid();
    int next = (s + 1) % p, prev = (s + p - 1) % p;
    uint64_t *src = alloc(LARGE_BYTES), *area = alloc(LARGE_BYTES), *dst = alloc(LARGE_BYTES);
    double *t = alloc(sizeof(double) * (size_t)g_large_steps);
    /* Not zero: pages of zeros may all map one page until written. */
    for (size_t i = 0; i < LARGE_WORDS; i++) {
        src[i] = (uint64_t)s + 1;
        area[i] = (uint64_t)s + 1;
        dst[i] = 0;
    }
    bsp_push_reg(area, LARGE_BYTES);
    bsp_sync();
    for (int kind = PUT; kind <= HPGET; kind++) {
        /* The puts write prev + 1 here; then next's area holds s + 1, which the gets read. */
        uint64_t *target = kind == PUT || kind == HPPUT ? area : dst;
        uint64_t expect = kind == PUT || kind == HPPUT ? (uint64_t)prev + 1 : (uint64_t)s + 1;
        memset(target, 0, LARGE_BYTES);
        bsp_sync();
        double before = bsp_time();
        for (int it = 0; it < WARM + g_large_steps; it++) {
            switch (kind) {
            case PUT:
                bsp_put(next, src, area, 0, LARGE_BYTES);
                break;
            case HPPUT:
                bsp_hpput(next, src, area, 0, LARGE_BYTES);
                break;
            case GET:
                bsp_get(next, area, 0, dst, LARGE_BYTES);
                break;
            default:
                bsp_hpget(next, area, 0, dst, LARGE_BYTES);
                break;
            }
            bsp_sync();
            double now = bsp_time();
            if (it >= WARM)
                t[it - WARM] = now - before;
            before = now;
        }
        if (target[0] != expect || target[LARGE_WORDS - 1] != expect)
            bsp_abort("bsplib_bench: process %d: %s moved words %llu..%llu, expected %llu\n", s, names[kind],
                      (unsigned long long)target[0], (unsigned long long)target[LARGE_WORDS - 1],
                      (unsigned long long)expect);
        report(names[kind], (double)LARGE_BYTES / median(t, g_large_steps) / 1e9);
    }
    bsp_pop_reg(area);
    bsp_sync();
    free(src);
    free(area);
    free(dst);
    free(t);
}

static void spmd(void) {
    bsp_begin(g_procs ? g_procs : (int)bsp_nprocs());
    if (bsp_nprocs() < 2)
        bsp_abort("bsplib_bench: needs at least 2 processes, has %d\n", (int)bsp_nprocs());
    bench_sync();
    bench_gl();
    bench_puts();
    bench_large();
    bsp_end();
}

int main(int argc, char **argv) {
    /* The arguments are read before bsp_init: BSPonMPI runs the SPMD part of ranks other than
     * 0 from inside bsp_init, and every process must see the same counts. */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-p") == 0 && i + 1 < argc && atoi(argv[i + 1]) >= 2) {
            g_procs = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--quick") == 0) {
            g_syncs = 50, g_sync_blocks = 3, g_maxh = 16, g_niters = 5;
            g_puts = 100, g_put_steps = 3, g_put_blocks = 3, g_large_steps = 3;
        } else {
            fprintf(stderr, "usage: %s [-p P (at least 2)] [--quick]; unexpected `%s`\n", argv[0], argv[i]);
            return 2;
        }
    }
    bsp_init(spmd, argc, argv);
    spmd();
    return 0;
}
