/* The header against the manual pages: every function of BSPlib, assigned to a pointer of the
 * manual's C signature (a different signature does not compile with -Werror), and called, so
 * that linking checks that the library exports it. Run on any number of processes. */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

static void (*const begin_)(int) = bsp_begin;
static void (*const end_)(void) = bsp_end;
static void (*const init_)(void (*)(void), int, char **) = bsp_init;
static void (*const abort_)(const char *, ...) = bsp_abort;
static int (*const nprocs_)(void) = bsp_nprocs;
static int (*const pid_)(void) = bsp_pid;
static double (*const time_)(void) = bsp_time;
static void (*const sync_)(void) = bsp_sync;
static void (*const push_reg_)(const void *, int) = bsp_push_reg;
static void (*const pop_reg_)(const void *) = bsp_pop_reg;
static void (*const put_)(int, const void *, void *, int, int) = bsp_put;
static void (*const hpput_)(int, const void *, void *, int, int) = bsp_hpput;
static void (*const get_)(int, const void *, int, void *, int) = bsp_get;
static void (*const hpget_)(int, const void *, int, void *, int) = bsp_hpget;
static void (*const set_tagsize_)(int *) = bsp_set_tagsize;
static void (*const send_)(int, const void *, const void *, int) = bsp_send;
static void (*const qsize_)(int *, int *) = bsp_qsize;
static void (*const get_tag_)(int *, void *) = bsp_get_tag;
static void (*const move_)(void *, int) = bsp_move;
static int (*const hpmove_)(void **, void **) = bsp_hpmove;

/* The dialects' type names, as a program written for BSPonMPI or MulticoreBSP uses them. */
static void dialect_types(void) {
    bsp_pid_t me = bsp_pid();
    bsp_nprocs_t p = bsp_nprocs();
    bsp_size_t tag = 0;
    bsp_nprocs_t messages = 0;
    bsp_size_t bytes = 0;
    bsp_set_tagsize(&tag);
    bsp_qsize(&messages, &bytes);
    CHECK(me < p && messages == 0 && bytes == 0);
}

int main(int argc, char **argv) {
    (void)argc;
    (void)argv;
    (void)init_;
    (void)abort_;
    begin_(nprocs_());
    int p = nprocs_(), s = pid_();
    CHECK(time_() >= 0.0);
    int x = 0, y = 0, tagsize = sizeof(int);
    push_reg_(&x, sizeof x);
    set_tagsize_(&tagsize);
    sync_();
    put_((s + 1) % p, &s, &x, 0, sizeof s);
    hpput_((s + 1) % p, &s, &x, 0, 0);
    get_((s + 1) % p, &x, 0, &y, 0);
    hpget_((s + 1) % p, &x, 0, &y, 0);
    send_((s + 1) % p, &s, &s, sizeof s);
    sync_();
    CHECK(x == (s + p - 1) % p);
    int n = -1, nbytes = -1, status = -1, tag = -1, payload = -1;
    qsize_(&n, &nbytes);
    CHECK(n == 1 && nbytes == sizeof(int));
    get_tag_(&status, &tag);
    CHECK(status == sizeof(int) && tag == (s + p - 1) % p);
    move_(&payload, sizeof payload);
    CHECK(payload == (s + p - 1) % p);
    void *tp = NULL, *pp = NULL;
    CHECK(hpmove_(&tp, &pp) == -1);
    dialect_types();
    pop_reg_(&x);
    sync_();
    if (s == 0) {
        printf("api: %d processes\n", p);
    }
    end_();
    return EXIT_SUCCESS;
}
