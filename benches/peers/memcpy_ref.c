/*
 * The physical reference for bulk data on one machine (run by scripts/peers): two threads at
 * once, each pinned to a core of its own, copy 8 MiB with memcpy, then meet at a spin barrier;
 * the work of one superstep of bsplib_bench's 8 MiB transfers, done by hand. Two ways:
 *
 *   memcpy_gbs       pull: each thread copies from a buffer the *other* thread wrote into its
 *                    own buffer (as a get, or a put applied by its receiver, moves data);
 *   memcpy_push_gbs  push: each thread copies from its own buffer into the other thread's
 *                    (as a put applied by its sender moves data).
 *
 *   memcpy_ref [--quick]
 *
 * Prints "name value" lines: 8 MiB / thread 0's median round, in GB/s per thread.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BYTES ((size_t)8 << 20)
#define WARM 3

static int g_rounds = 40;
static unsigned char *g_buf[2], *g_dst[2];
static pthread_barrier_t g_start;
static double g_median[2]; /* pull, push */

/* The textbook centralized spin barrier for two threads: a counter and a generation. */
static _Alignas(128) atomic_uint g_count;
static _Alignas(128) atomic_uint g_generation;

static void spin_barrier(void) {
    unsigned g = atomic_load_explicit(&g_generation, memory_order_acquire);
    if (atomic_fetch_add_explicit(&g_count, 1, memory_order_acq_rel) + 1 == 2) {
        atomic_store_explicit(&g_count, 0, memory_order_relaxed);
        atomic_store_explicit(&g_generation, g + 1, memory_order_release);
    } else {
        while (atomic_load_explicit(&g_generation, memory_order_acquire) == g)
            ;
    }
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Pins the caller to the me-th core it may run on, if there is one. */
static void pin(int me) {
    cpu_set_t allowed, one;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        return;
    for (int cpu = 0, seen = 0; cpu < CPU_SETSIZE; cpu++) {
        if (CPU_ISSET(cpu, &allowed) && seen++ == me) {
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            pthread_setaffinity_np(pthread_self(), sizeof one, &one);
            return;
        }
    }
}

/* Thread me's median round copying src to dst; checks that dst holds byte `expect`. */
static double series(int me, unsigned char *dst, const unsigned char *src, unsigned char expect) {
    double *t = malloc(sizeof(double) * (size_t)g_rounds);
    if (t == NULL) {
        fprintf(stderr, "memcpy_ref: out of memory\n");
        exit(1);
    }
    memset(g_dst[me], 0, BYTES);
    pthread_barrier_wait(&g_start);
    double before = now();
    for (int r = 0; r < WARM + g_rounds; r++) {
        memcpy(dst, src, BYTES);
        spin_barrier();
        double t1 = now();
        if (r >= WARM)
            t[r - WARM] = t1 - before;
        before = t1;
    }
    if (g_dst[me][0] != expect || g_dst[me][BYTES - 1] != expect) {
        fprintf(stderr, "memcpy_ref: thread %d found the wrong bytes\n", me);
        exit(1);
    }
    qsort(t, (size_t)g_rounds, sizeof(double), cmp_double);
    double m = g_rounds % 2 ? t[g_rounds / 2] : (t[g_rounds / 2 - 1] + t[g_rounds / 2]) / 2;
    free(t);
    return m;
}

static void *copier(void *arg) {
    int me = (int)(intptr_t)arg, other = 1 - me;
    pin(me);
    g_buf[me] = malloc(BYTES);
    g_dst[me] = malloc(BYTES);
    if (g_buf[me] == NULL || g_dst[me] == NULL) {
        fprintf(stderr, "memcpy_ref: out of memory\n");
        exit(1);
    }
    memset(g_buf[me], me + 1, BYTES);
    pthread_barrier_wait(&g_start);
    double pull = series(me, g_dst[me], g_buf[other], (unsigned char)(other + 1));
    pthread_barrier_wait(&g_start);
    double push = series(me, g_dst[other], g_buf[me], (unsigned char)(other + 1));
    if (me == 0) {
        g_median[0] = pull;
        g_median[1] = push;
    }
    return NULL;
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            g_rounds = 3;
        } else {
            fprintf(stderr, "usage: %s [--quick]; unexpected `%s`\n", argv[0], argv[i]);
            return 2;
        }
    }
    pthread_t other;
    pthread_barrier_init(&g_start, NULL, 2);
    if (pthread_create(&other, NULL, copier, (void *)(intptr_t)1) != 0) {
        fprintf(stderr, "memcpy_ref: cannot start a thread\n");
        return 1;
    }
    copier((void *)(intptr_t)0);
    pthread_join(other, NULL);
    printf("memcpy_gbs %.6g\n", (double)BYTES / g_median[0] / 1e9);
    printf("memcpy_push_gbs %.6g\n", (double)BYTES / g_median[1] / 1e9);
    for (int i = 0; i < 2; i++) {
        free(g_buf[i]);
        free(g_dst[i]);
    }
    return 0;
}
