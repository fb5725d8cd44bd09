/* DRMA rules (bsp_put(3), bsp_get(3), bsp_hpput(3), bsp_hpget(3), and the project's
 * decisions D1, D2, D7), on any number of processes. Prints one line per rule on process 0. */
#include <stdio.h>
#include <string.h>

#include "check.h"

/* Process ids and counts are locals: on the threads engine, global and static variables are
 * shared by all processes (each thread is a process). */

static void say(const char *rule) {
    if (bsp_pid() == 0) {
        printf("ok: %s\n", rule);
    }
}

/* The source of a put is copied at the call: changing it afterwards has no effect. */
static void put_copies_at_call(void) {
    int p = bsp_nprocs(), s = bsp_pid();
    int x = -1;
    bsp_push_reg(&x, sizeof x);
    bsp_sync();
    int v = 100 + s;
    bsp_put((s + 1) % p, &v, &x, 0, sizeof v);
    v = -7;
    bsp_sync();
    CHECK(x == 100 + (s + p - 1) % p);
    bsp_pop_reg(&x);
    bsp_sync();
    say("put copies its source at the call");
}

/* Puts to one element: applied in ascending source pid, then issue order; the last one stays. */
static void put_order(void) {
    int p = bsp_nprocs(), s = bsp_pid();
    int x[2] = {-1, -1};
    bsp_push_reg(x, sizeof x);
    bsp_sync();
    for (int k = 0; k < 3; k++) {
        int v = 10 * s + k;
        bsp_put(0, &v, x, 0, sizeof v);
    }
    int w = s;
    bsp_put(0, &w, x, sizeof(int), sizeof w);
    bsp_sync();
    if (s == 0) {
        CHECK(x[0] == 10 * (p - 1) + 2);
        CHECK(x[1] == p - 1);
    }
    bsp_pop_reg(x);
    bsp_sync();
    say("puts to one element land in ascending pid, then issue order");
}

/* A get reads its source at the sync, before any put of the superstep lands, and its
 * destination keeps its old value until then. */
static void get_reads_before_puts(void) {
    int p = bsp_nprocs(), s = bsp_pid();
    int x = 1000 + s, got = -1;
    bsp_push_reg(&x, sizeof x);
    bsp_sync();
    int right = (s + 1) % p;
    x = 2000 + s; /* a local write before the sync: the get sees it */
    bsp_get(right, &x, 0, &got, sizeof got);
    int v = 3000 + s;
    bsp_put(right, &v, &x, 0, sizeof v);
    CHECK(got == -1); /* not before the sync */
    bsp_sync();
    CHECK(got == 2000 + right);
    CHECK(x == 3000 + (s + p - 1) % p);
    bsp_pop_reg(&x);
    bsp_sync();
    say("gets read before puts land; the destination is stale until the sync");
}

/* A get result and a put landing on the same memory: the put wins (D1). */
static void put_wins_over_get(void) {
    int p = bsp_nprocs(), s = bsp_pid();
    int x = 50 + s, y = -1;
    bsp_push_reg(&x, sizeof x);
    bsp_push_reg(&y, sizeof y);
    bsp_sync();
    int left = (s + p - 1) % p, right = (s + 1) % p;
    bsp_get(right, &x, 0, &y, sizeof y); /* y := x of the right neighbour */
    int v = 70 + s;
    bsp_put(right, &v, &y, 0, sizeof v); /* the right neighbour's y := 70 + s */
    bsp_sync();
    CHECK(y == 70 + left);
    bsp_pop_reg(&y);
    bsp_pop_reg(&x);
    bsp_sync();
    say("a put wins over a get into the same memory");
}

/* Overlapping gets into one buffer: the later one wins (D2). */
static void later_get_wins(void) {
    int p = bsp_nprocs(), s = bsp_pid();
    int x[2];
    x[0] = 10 + s;
    x[1] = 20 + s;
    bsp_push_reg(x, sizeof x);
    bsp_sync();
    int got = -1;
    bsp_get(0, x, 0, &got, sizeof got);
    bsp_get(p - 1, x, sizeof(int), &got, sizeof got);
    bsp_sync();
    CHECK(got == 20 + p - 1);
    bsp_pop_reg(x);
    bsp_sync();
    say("the later of overlapping gets wins");
}

/* hpput and hpget move the same data as put and get; offsets count bytes. */
static void unbuffered(void) {
    int p = bsp_nprocs(), s = bsp_pid();
    double a[4] = {0, 0, 0, 0};
    bsp_push_reg(a, sizeof a);
    bsp_sync();
    double mine[2] = {s + 0.5, s + 0.25};
    bsp_hpput((s + 1) % p, mine, a, 2 * sizeof(double), sizeof mine);
    bsp_sync();
    int left = (s + p - 1) % p;
    CHECK(a[0] == 0 && a[2] == left + 0.5 && a[3] == left + 0.25);
    double b[2] = {-1, -1};
    bsp_hpget(left, a, 2 * sizeof(double), b, sizeof b);
    bsp_sync();
    int left2 = (s + 2 * p - 2) % p;
    CHECK(b[0] == left2 + 0.5 && b[1] == left2 + 0.25);
    bsp_pop_reg(a);
    bsp_sync();
    say("hpput and hpget");
}

/* Zero-length transfers move nothing, whatever the offset (D7). */
static void zero_length(void) {
    int p = bsp_nprocs(), s = bsp_pid();
    int x = 5;
    bsp_push_reg(&x, sizeof x);
    bsp_sync();
    int v = 9;
    bsp_put((s + 1) % p, &v, &x, 1000, 0);
    bsp_get((s + 1) % p, &x, 1000, &v, 0);
    bsp_sync();
    CHECK(x == 5 && v == 9);
    bsp_pop_reg(&x);
    bsp_sync();
    say("zero-length transfers move nothing");
}

/* A get from this process's own registration into another part of it (staged). */
static void get_into_registered(void) {
    int p = bsp_nprocs(), s = bsp_pid();
    char buf[8];
    memset(buf, 'a' + s, sizeof buf);
    bsp_push_reg(buf, sizeof buf);
    bsp_sync();
    bsp_get((s + 1) % p, buf, 0, buf + 4, 4);
    bsp_sync();
    CHECK(buf[0] == 'a' + s && buf[4] == 'a' + (s + 1) % p && buf[7] == 'a' + (s + 1) % p);
    bsp_pop_reg(buf);
    bsp_sync();
    say("a get into registered memory");
}

/* Runs of one-int gets from one registration: into a plain buffer, then into this process's
 * own registered memory (staged: the right neighbour overwrites what is read in the same sync,
 * and the gets read the old values). */
static void get_runs(void) {
    int p = bsp_nprocs(), s = bsp_pid();
    int x[8], plain[4] = {-1, -1, -1, -1};
    for (int i = 0; i < 8; i++)
        x[i] = 100 * s + i;
    bsp_push_reg(x, sizeof x);
    bsp_sync();
    int right = (s + 1) % p;
    for (int i = 0; i < 4; i++)
        bsp_get(right, x, i * (int)sizeof(int), &plain[i], sizeof(int));
    for (int i = 0; i < 4; i++)
        bsp_get(right, x, i * (int)sizeof(int), &x[4 + i], sizeof(int));
    for (int i = 0; i < 4; i++)
        bsp_get(right, x, (4 + i) * (int)sizeof(int), &x[i], sizeof(int));
    bsp_sync();
    for (int i = 0; i < 4; i++) {
        CHECK(plain[i] == 100 * right + i);
        CHECK(x[4 + i] == 100 * right + i);
        CHECK(x[i] == 100 * right + 4 + i);
    }
    bsp_pop_reg(x);
    bsp_sync();
    say("runs of gets from one registration, into plain and into registered memory");
}

int main(void) {
    bsp_begin(bsp_nprocs());
    put_copies_at_call();
    put_order();
    get_reads_before_puts();
    put_wins_over_get();
    later_get_wins();
    unbuffered();
    zero_length();
    get_into_registered();
    get_runs();
    bsp_end();
    return 0;
}
