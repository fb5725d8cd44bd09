/*
 * The plain MPI references for bsplib_bench's figures on MPI (run by scripts/peers under
 * mpirun): what the same communication costs written by hand with MPI, every rank at once.
 *
 *   mpi_ref [--quick] [--sync-only]
 *
 * Rank 0 times and prints "name value" lines:
 *
 *   barrier_us     MPI_Barrier: the median over 21 blocks (after one to warm up) of 1000
 *                  consecutive barriers (against sync_us).
 *   allreduce_us   the same with an MPI_Allreduce (bitwise or) of one 8-byte word: the least
 *                  a sync costs that must also agree on something.
 *   sendrecv_gbs   MPI_Sendrecv of 8 MiB to rank (s+1) mod p and from (s-1) mod p, followed
 *                  by an MPI_Barrier (as a superstep ends in a sync): 8 MiB / the median of
 *                  40 rounds (after 3), in GB/s per rank (against put_gbs and the others).
 *   alltoallv_us   1000 one-word values to rank (s+1) mod p, packed by hand into a send
 *                  buffer, one MPI_Alltoallv with counts known in advance, unpacked into the
 *                  destination array: the median over 21 blocks (after one) of 50 rounds
 *                  (against puts_us).
 *
 * Same constants as bsplib_bench.c; transfers are checked.
 */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LARGE_BYTES ((size_t)8 << 20)
#define LARGE_WORDS (LARGE_BYTES / sizeof(uint64_t))
#define WARM 3

static int g_syncs = 1000, g_sync_blocks = 21;
static int g_puts = 1000, g_put_steps = 50, g_put_blocks = 21;
static int g_large_steps = 40;
static int g_rank, g_size;

static void *alloc(size_t bytes) {
    void *p = malloc(bytes);
    if (p == NULL) {
        fprintf(stderr, "mpi_ref: rank %d: cannot allocate %zu bytes\n", g_rank, bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
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
    if (g_rank == 0) {
        printf("%s %.6g\n", name, value);
        fflush(stdout);
    }
}

static void fail(const char *what, unsigned long long got, unsigned long long expected) {
    fprintf(stderr, "mpi_ref: rank %d: %s: got %llu, expected %llu\n", g_rank, what, got, expected);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void bench_barrier(void) {
    double *t = alloc(sizeof(double) * (size_t)g_sync_blocks);
    double *a = alloc(sizeof(double) * (size_t)g_sync_blocks);
    uint64_t mine = (uint64_t)1 << (g_rank % 64), all = 0;
    for (int b = 0; b <= g_sync_blocks; b++) { /* block 0 warms up */
        double t0 = MPI_Wtime();
        for (int i = 0; i < g_syncs; i++)
            MPI_Barrier(MPI_COMM_WORLD);
        double t1 = MPI_Wtime();
        for (int i = 0; i < g_syncs; i++)
            MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_BOR, MPI_COMM_WORLD);
        if (b > 0) {
            t[b - 1] = (t1 - t0) / g_syncs;
            a[b - 1] = (MPI_Wtime() - t1) / g_syncs;
        }
    }
    if (all != (g_size >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << g_size) - 1))
        fail("MPI_Allreduce", (unsigned long long)all, (unsigned long long)(((uint64_t)1 << g_size) - 1));
    report("barrier_us", 1e6 * median(t, g_sync_blocks));
    report("allreduce_us", 1e6 * median(a, g_sync_blocks));
    free(t);
    free(a);
}

static void bench_sendrecv(void) {
    int next = (g_rank + 1) % g_size, prev = (g_rank + g_size - 1) % g_size;
    uint64_t *src = alloc(LARGE_BYTES), *dst = alloc(LARGE_BYTES);
    double *t = alloc(sizeof(double) * (size_t)g_large_steps);
    for (size_t i = 0; i < LARGE_WORDS; i++) {
        src[i] = (uint64_t)g_rank + 1;
        dst[i] = 0;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double before = MPI_Wtime();
    for (int it = 0; it < WARM + g_large_steps; it++) {
        MPI_Sendrecv(src, (int)LARGE_BYTES, MPI_BYTE, next, 0, dst, (int)LARGE_BYTES, MPI_BYTE, prev, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
        double now = MPI_Wtime();
        if (it >= WARM)
            t[it - WARM] = now - before;
        before = now;
    }
    if (dst[0] != (uint64_t)prev + 1 || dst[LARGE_WORDS - 1] != (uint64_t)prev + 1)
        fail("MPI_Sendrecv", (unsigned long long)dst[LARGE_WORDS - 1], (unsigned long long)prev + 1);
    report("sendrecv_gbs", (double)LARGE_BYTES / median(t, g_large_steps) / 1e9);
    free(src);
    free(dst);
    free(t);
}

static void bench_alltoallv(void) {
    int next = (g_rank + 1) % g_size, prev = (g_rank + g_size - 1) % g_size;
    uint64_t *send = alloc(sizeof(uint64_t) * (size_t)g_puts), *recv = alloc(sizeof(uint64_t) * (size_t)g_puts);
    uint64_t *dst = alloc(sizeof(uint64_t) * (size_t)g_puts);
    int *scounts = alloc(sizeof(int) * (size_t)g_size), *rcounts = alloc(sizeof(int) * (size_t)g_size);
    int *displs = alloc(sizeof(int) * (size_t)g_size);
    double *t = alloc(sizeof(double) * (size_t)g_put_blocks);
    for (int q = 0; q < g_size; q++) {
        scounts[q] = q == next ? g_puts : 0;
        rcounts[q] = q == prev ? g_puts : 0;
        displs[q] = 0;
    }
    memset(dst, 0, sizeof(uint64_t) * (size_t)g_puts);
    uint64_t step = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int b = 0; b <= g_put_blocks; b++) {
        double t0 = MPI_Wtime();
        for (int k = 0; k < g_put_steps; k++, step++) {
            for (int i = 0; i < g_puts; i++)
                send[i] = step * (uint64_t)g_puts + (uint64_t)i;
            MPI_Alltoallv(send, scounts, displs, MPI_UINT64_T, recv, rcounts, displs, MPI_UINT64_T,
                          MPI_COMM_WORLD);
            for (int i = 0; i < g_puts; i++)
                dst[i] = recv[i];
        }
        if (b > 0)
            t[b - 1] = (MPI_Wtime() - t0) / g_put_steps;
    }
    uint64_t last = (step - 1) * (uint64_t)g_puts + (uint64_t)(g_puts - 1);
    if (dst[g_puts - 1] != last)
        fail("MPI_Alltoallv", (unsigned long long)dst[g_puts - 1], (unsigned long long)last);
    report("alltoallv_us", 1e6 * median(t, g_put_blocks));
    free(send);
    free(recv);
    free(dst);
    free(scounts);
    free(rcounts);
    free(displs);
    free(t);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    int sync_only = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            g_syncs = 50, g_sync_blocks = 3, g_puts = 100, g_put_steps = 3, g_put_blocks = 3, g_large_steps = 3;
        } else if (strcmp(argv[i], "--sync-only") == 0) {
            sync_only = 1;
        } else {
            if (g_rank == 0)
                fprintf(stderr, "usage: mpirun -n P %s [--quick] [--sync-only]; unexpected `%s`\n", argv[0], argv[i]);
            MPI_Finalize();
            return 2;
        }
    }
    if (g_size < 2) {
        fprintf(stderr, "mpi_ref: needs at least 2 ranks (mpirun -n 2), has %d\n", g_size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    bench_barrier();
    if (!sync_only) {
        bench_sendrecv();
        bench_alltoallv();
    }
    MPI_Finalize();
    return 0;
}
