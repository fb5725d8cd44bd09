/* BSMP rules (bsmp(3), bsp_set_tagsize(3), bsp_send(3), bsp_qsize(3), bsp_get_tag(3),
 * bsp_move(3), bsp_hpmove(3), and the project's decisions D8, D10), on any number of processes. */
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

/* The tag size: 0 at the start; a request takes effect at the next sync; the call returns the
 * size in force, which sends of the same superstep use. */
static void tag_size_rule(void) {
    int p = bsp_nprocs(), s = bsp_pid();
    int n = 8;
    bsp_set_tagsize(&n);
    CHECK(n == 0);
    bsp_send((s + 1) % p, NULL, "x", 1); /* a 0-byte tag: the size in force */
    bsp_sync();
    int status = -1;
    char none[1];
    bsp_get_tag(&status, none);
    CHECK(status == 1);
    n = 4;
    bsp_set_tagsize(&n);
    CHECK(n == 8);
    n = 2;
    bsp_set_tagsize(&n); /* the last request of the superstep counts */
    CHECK(n == 8);
    long long tag = 1000 + s;
    bsp_send((s + 1) % p, &tag, NULL, 0);
    bsp_sync();
    long long got = -1;
    bsp_get_tag(&status, &got);
    CHECK(status == 0 && got == 1000 + (s + p - 1) % p);
    n = 0;
    bsp_set_tagsize(&n);
    CHECK(n == 2);
    bsp_sync();
    say("the tag size takes effect at the next sync; bsp_set_tagsize returns the size in force");
}

/* bsp_qsize counts the messages left and their payload bytes (tags not counted). */
static void qsize(void) {
    int p = bsp_nprocs(), s = bsp_pid();
    int n = sizeof(int);
    bsp_set_tagsize(&n);
    bsp_sync();
    for (int q = 0; q < p; q++) {
        char payload[3] = {'a', 'b', 'c'};
        bsp_send(q, &s, payload, 1 + q % 3);
        bsp_send(q, &s, payload, 2);
    }
    int msgs = -1, bytes = -1;
    bsp_qsize(&msgs, &bytes);
    CHECK(msgs == 0 && bytes == 0); /* sends of this superstep are not counted */
    bsp_sync();
    bsp_qsize(&msgs, &bytes);
    CHECK(msgs == 2 * p && bytes == p * (1 + s % 3 + 2));
    char buf[3];
    bsp_move(buf, sizeof buf);
    bsp_qsize(&msgs, NULL);
    CHECK(msgs == 2 * p - 1);
    bsp_qsize(NULL, &bytes);
    CHECK(bytes == p * (1 + s % 3 + 2) - (1 + s % 3));
    bsp_sync(); /* unread messages are discarded */
    bsp_qsize(&msgs, &bytes);
    CHECK(msgs == 0 && bytes == 0);
    n = 0;
    bsp_set_tagsize(&n);
    bsp_sync();
    say("bsp_qsize counts messages and payload bytes; unread messages go at the next sync");
}

/* The queue holds messages in ascending source pid, then send order (D10); bsp_get_tag reads
 * the first without removing it, bsp_move removes it. */
static void move_order(void) {
    int p = bsp_nprocs(), s = bsp_pid();
    int n = sizeof(int);
    bsp_set_tagsize(&n);
    bsp_sync();
    for (int k = 0; k < 3; k++) {
        int payload = 100 * s + k;
        bsp_send(0, &k, &payload, sizeof payload);
    }
    bsp_sync();
    if (s == 0) {
        for (int q = 0; q < p; q++) {
            for (int k = 0; k < 3; k++) {
                int status = -1, tag = -1, payload = -1;
                bsp_get_tag(&status, &tag);
                CHECK(status == sizeof(int) && tag == k);
                bsp_get_tag(&status, &tag); /* not removed */
                CHECK(tag == k);
                bsp_move(&payload, sizeof payload);
                CHECK(payload == 100 * q + k);
            }
        }
        int status = 5;
        bsp_get_tag(&status, NULL);
        CHECK(status == -1);
    }
    n = 0;
    bsp_set_tagsize(&n);
    bsp_sync();
    say("messages arrive in ascending source pid, then send order");
}

/* bsp_move copies at most reception_nbytes (the rest of the payload is dropped), and leaves
 * the buffer past what it copied alone. */
static void move_cuts(void) {
    int p = bsp_nprocs(), s = bsp_pid();
    bsp_send((s + 1) % p, NULL, "abcdef", 6);
    bsp_sync();
    char buf[6] = {'-', '-', '-', '-', '-', '-'};
    bsp_move(buf, 4);
    CHECK(memcmp(buf, "abcd--", 6) == 0);
    bsp_send((s + 1) % p, NULL, "xy", 2);
    bsp_sync();
    bsp_move(NULL, 0); /* drops the message */
    int msgs = -1;
    bsp_qsize(&msgs, NULL);
    CHECK(msgs == 0);
    say("bsp_move copies at most reception_nbytes");
}

/* bsp_hpmove points into the receive buffer, in queue order; -1 when the queue is empty. */
static void hpmove(void) {
    int p = bsp_nprocs(), s = bsp_pid();
    int n = sizeof(double);
    bsp_set_tagsize(&n);
    bsp_sync();
    for (int k = 0; k < 2; k++) {
        double tag = s + k / 2.0;
        int payload[3] = {s, k, -s};
        bsp_send((s + 1) % p, &tag, payload, (k + 2) * (int)sizeof(int));
    }
    bsp_sync();
    int left = (s + p - 1) % p;
    for (int k = 0; k < 2; k++) {
        void *tp = NULL, *pp = NULL;
        int len = bsp_hpmove(&tp, &pp);
        CHECK(len == (k + 2) * (int)sizeof(int));
        CHECK(*(double *)tp == left + k / 2.0);
        CHECK(((int *)pp)[0] == left && ((int *)pp)[1] == k);
    }
    void *tp = NULL, *pp = NULL;
    CHECK(bsp_hpmove(&tp, &pp) == -1);
    n = 0;
    bsp_set_tagsize(&n);
    bsp_sync();
    say("bsp_hpmove");
}

int main(void) {
    bsp_begin(bsp_nprocs());
    tag_size_rule();
    qsize();
    move_order();
    move_cuts();
    hpmove();
    bsp_end();
    return 0;
}
