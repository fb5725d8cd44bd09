/* Registration (bsp_push_reg(3), bsp_pop_reg(3)): matched by order, effective at the next sync,
 * newer registrations of one address replacing older ones, pops effective at the next sync. */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

/* Process ids and counts are locals: on the threads engine, global and static variables are
 * shared by all processes (each thread is a process). */

static void say(const char *rule) {
    if (bsp_pid() == 0) {
        printf("ok: %s\n", rule);
    }
}

/* The i-th push of every process is one registration, whatever the addresses and sizes. */
static void matched_by_order(void) {
    int p = bsp_nprocs(), s = bsp_pid();
    int *data = calloc((size_t)s + 1, sizeof(int));
    int other = -1;
    bsp_push_reg(data, (s + 1) * (int)sizeof(int));
    bsp_push_reg(&other, sizeof other);
    bsp_sync();
    /* Process q's first registration holds q + 1 ints: write its last one. */
    int q = (s + 1) % p;
    int v = 40 + s;
    bsp_put(q, &v, data, q * (int)sizeof(int), sizeof v);
    bsp_put(q, &v, &other, 0, sizeof v);
    bsp_sync();
    CHECK(data[s] == 40 + (s + p - 1) % p && other == 40 + (s + p - 1) % p);
    bsp_pop_reg(&other);
    bsp_pop_reg(data);
    bsp_sync();
    free(data);
    say("registrations are matched by order, each with its own extents");
}

/* A newer registration of an address replaces the older one until it is popped. */
static void newer_replaces_older(void) {
    int p = bsp_nprocs(), s = bsp_pid();
    int a[4] = {0, 0, 0, 0};
    bsp_push_reg(a, sizeof(int));
    bsp_sync();
    bsp_push_reg(a, sizeof a); /* takes effect at the next sync: the old extent holds now */
    int v = 1;
    bsp_put((s + 1) % p, &v, a, 0, sizeof v);
    bsp_sync();
    v = 2;
    bsp_put((s + 1) % p, &v, a, 3 * sizeof(int), sizeof v); /* within the new extent */
    bsp_pop_reg(a); /* the newer one; still usable until the sync */
    bsp_put((s + 1) % p, &v, a, 2 * sizeof(int), sizeof v);
    bsp_sync();
    CHECK(a[0] == 1 && a[2] == 2 && a[3] == 2);
    v = 3;
    bsp_put((s + 1) % p, &v, a, 0, sizeof v); /* the older one again */
    bsp_sync();
    CHECK(a[0] == 3);
    bsp_pop_reg(a);
    bsp_sync();
    say("a newer registration replaces an older one until its pop takes effect");
}

/* Registration is not a sync: communication of the superstep of a push lands at the sync
 * that makes the push effective, as any other. */
static void push_is_not_a_sync(void) {
    int p = bsp_nprocs(), s = bsp_pid();
    int x = -1, y = -1;
    bsp_push_reg(&x, sizeof x);
    bsp_sync();
    int v = 8;
    bsp_put((s + 1) % p, &v, &x, 0, sizeof v);
    bsp_push_reg(&y, sizeof y);
    CHECK(x == -1);
    bsp_sync();
    CHECK(x == 8);
    bsp_put((s + 1) % p, &v, &y, 0, sizeof v);
    bsp_sync();
    CHECK(y == 8);
    bsp_pop_reg(&y);
    bsp_pop_reg(&x);
    bsp_sync();
    say("bsp_push_reg is not a sync");
}

/* A process that takes no part registers NULL; the others still communicate among themselves. */
static void null_registration(void) {
    int p = bsp_nprocs(), s = bsp_pid();
    int x = -1;
    bsp_push_reg(s == 0 ? NULL : &x, s == 0 ? 0 : (int)sizeof x);
    bsp_sync();
    if (s != 0) {
        int v = 60 + s;
        int q = s + 1 < p ? s + 1 : 1;
        bsp_put(q, &v, &x, 0, sizeof v);
    }
    bsp_sync();
    if (s != 0) {
        int from = s - 1 >= 1 ? s - 1 : p - 1;
        CHECK(x == 60 + from);
    }
    bsp_pop_reg(s == 0 ? NULL : &x);
    bsp_sync();
    say("a process registers NULL to take no part");
}

/* A registration pushed and popped in one superstep never takes effect; the older one of the
 * same address stays in force. */
static void push_and_pop_in_one_superstep(void) {
    int p = bsp_nprocs(), s = bsp_pid();
    int x = -1;
    bsp_push_reg(&x, sizeof x);
    bsp_sync();
    bsp_push_reg(&x, 0);
    bsp_pop_reg(&x); /* the newer one */
    bsp_push_reg(NULL, 0);
    bsp_pop_reg(NULL);
    bsp_sync();
    int v = 30 + s;
    bsp_put((s + 1) % p, &v, &x, 0, sizeof v); /* through the older one: 4 bytes */
    bsp_sync();
    CHECK(x == 30 + (s + p - 1) % p);
    bsp_pop_reg(&x);
    bsp_sync();
    say("a registration pushed and popped in one superstep never takes effect");
}

int main(void) {
    bsp_begin(bsp_nprocs());
    matched_by_order();
    newer_replaces_older();
    push_is_not_a_sync();
    null_registration();
    push_and_pop_in_one_superstep();
    bsp_end();
    return 0;
}
