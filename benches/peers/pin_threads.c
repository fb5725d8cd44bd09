/*
 * Pins every thread of a program to a core of its own, for a peer that does not pin its threads
 * itself (scripts/peers runs LPF's pthread engine under it: lpfrun pins nothing, see
 * PERFORMANCE.md). Loaded with LD_PRELOAD.
 *
 * The cores are the CPUs the process may run on: the main thread takes the first (when the
 * library is loaded, before main), and each thread the program creates takes, before it runs
 * any of the program's code, the CPU with the fewest threads alive on it (the first of those),
 * so threads alive at the same time get distinct CPUs while there are enough, whatever threads
 * came and went before (LPF starts a thread per process for each of its runs). A thread that
 * ends gives its CPU back. Each thread reads its affinity back from the kernel: a thread whose
 * affinity is not exactly its CPU makes the program exit with status 97, so a run that was not
 * pinned cannot pass for one. With PIN_THREADS_REPORT set, each thread prints
 * "pin_threads: thread K on CPU C" on stderr (K counts the threads created, the main one 0).
 *
 * Build: gcc -shared -fPIC -O2 -o pin_threads.so pin_threads.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int cpus[CPU_SETSIZE];
static int ncpus;
static atomic_int next_thread = 1; /* the main thread is thread 0 */
/* Threads alive on cpus[i], and the lock that keeps choosing and counting together. */
static int alive[CPU_SETSIZE];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* Each pinned thread's index into cpus + 1, given back by the key's destructor at its end. */
static pthread_key_t slot_key;

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

/* Pins the calling thread to `cpu` and checks it with the kernel; exits on failure. */
static void pin_self(int index, int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    cpu_set_t got;
    CPU_ZERO(&got);
    if (sched_setaffinity(0, sizeof set, &set) != 0 || sched_getaffinity(0, sizeof got, &got) != 0 ||
        CPU_COUNT(&got) != 1 || !CPU_ISSET(cpu, &got)) {
        fprintf(stderr, "pin_threads: thread %d could not be pinned to CPU %d\n", index, cpu);
        _exit(97);
    }
    if (getenv("PIN_THREADS_REPORT"))
        fprintf(stderr, "pin_threads: thread %d on CPU %d\n", index, cpu);
}

static void give_back(void *slot) {
    pthread_mutex_lock(&lock);
    alive[(int)(intptr_t)slot - 1]--;
    pthread_mutex_unlock(&lock);
}

__attribute__((constructor)) static void pin_main(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0 || pthread_key_create(&slot_key, give_back) != 0)
        return;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set))
            cpus[ncpus++] = c;
    if (ncpus > 0) {
        alive[0] = 1;
        pin_self(0, cpus[0]);
    }
}

struct start {
    void *(*fn)(void *);
    void *arg;
    int index;
};

static void *pinned_start(void *p) {
    struct start s = *(struct start *)p;
    free(p);
    pthread_mutex_lock(&lock);
    int best = 0;
    for (int i = 1; i < ncpus; i++)
        if (alive[i] < alive[best])
            best = i;
    alive[best]++;
    pthread_mutex_unlock(&lock);
    pthread_setspecific(slot_key, (void *)(intptr_t)(best + 1));
    pin_self(s.index, cpus[best]);
    return s.fn(s.arg);
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *), void *arg) {
    static create_fn real;
    if (!real)
        real = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
    if (!real)
        abort();
    if (ncpus == 0)
        return real(thread, attr, fn, arg);
    struct start *s = malloc(sizeof *s);
    if (!s)
        return real(thread, attr, fn, arg);
    s->fn = fn;
    s->arg = arg;
    s->index = atomic_fetch_add(&next_thread, 1);
    int rc = real(thread, attr, pinned_start, s);
    if (rc != 0)
        free(s);
    return rc;
}
