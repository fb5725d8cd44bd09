/*
 * The physical reference for bulk data on one machine (run by scripts/peers): two threads at
 * once, each pinned to a core of its own, copy 8 MiB with memcpy from a buffer the *other*
 * thread wrote (as a BSP process reads data another process wrote), then meet at a spin
 * barrier; the work of one superstep of bsplib_bench's 8 MiB transfers, done by hand.
 *
 *   memcpy_ref [--quick]
 *
 * Prints "memcpy_gbs value": 8 MiB / thread 0's median round, in GB/s per thread.
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

static int g_rounds = 20;
static unsigned char *g_buf[2];
static pthread_barrier_t g_start;
static double g_median;

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

static void *copier(void *arg) {
    int me = (int)(intptr_t)arg;
    pin(me);
    g_buf[me] = malloc(BYTES);
    unsigned char *dst = malloc(BYTES);
    double *t = malloc(sizeof(double) * (size_t)g_rounds);
    if (g_buf[me] == NULL || dst == NULL || t == NULL) {
        fprintf(stderr, "memcpy_ref: out of memory\n");
        exit(1);
    }
    memset(g_buf[me], me + 1, BYTES);
    memset(dst, 0, BYTES);
    pthread_barrier_wait(&g_start);
    const unsigned char *src = g_buf[1 - me];
    double before = now();
    for (int r = 0; r < WARM + g_rounds; r++) {
        memcpy(dst, src, BYTES);
        spin_barrier();
        double t1 = now();
        if (r >= WARM)
            t[r - WARM] = t1 - before;
        before = t1;
    }
    if (dst[0] != 2 - me || dst[BYTES - 1] != 2 - me) {
        fprintf(stderr, "memcpy_ref: thread %d copied the wrong bytes\n", me);
        exit(1);
    }
    if (me == 0) {
        qsort(t, (size_t)g_rounds, sizeof(double), cmp_double);
        g_median = g_rounds % 2 ? t[g_rounds / 2] : (t[g_rounds / 2 - 1] + t[g_rounds / 2]) / 2;
    }
    pthread_barrier_wait(&g_start);
    free(dst);
    free(t);
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
    printf("memcpy_gbs %.6g\n", (double)BYTES / g_median / 1e9);
    free(g_buf[0]);
    free(g_buf[1]);
    return 0;
}
