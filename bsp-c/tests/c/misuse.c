/* One misuse per case (the first argument names it): each must end the program with the
 * runtime's message and exit status 1. Cases that a process makes alone are made by the last
 * process, while the others wait in a sync; run on 2 processes or more. */
#include <stdio.h>
#include <string.h>

#include <bsp_gp.h>

#include "check.h"

static int last(void) {
    return bsp_pid() == bsp_nprocs() - 1;
}

static void registered(int *x) {
    bsp_push_reg(x, 4 * sizeof(int));
    bsp_sync();
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: misuse CASE\n");
        return 2;
    }
    const char *c = argv[1];
    if (strcmp(c, "outside") == 0) {
        return bsp_pid();
    }
    if (strcmp(c, "abort-outside") == 0) {
        bsp_abort("stopped before bsp_begin: %s", "no input");
    }
    if (strcmp(c, "begin-zero") == 0) {
        bsp_begin(0);
    }
    if (strcmp(c, "end-without-begin") == 0) {
        bsp_end();
    }
    if (strcmp(c, "begin-too-many") == 0) { /* an error under mpirun only */
        bsp_begin(bsp_nprocs() + 1);
        bsp_end();
        return 0;
    }
    bsp_begin(bsp_nprocs());
    int x[4] = {0, 0, 0, 0}, y[4] = {0, 0, 0, 0};
    int v = 1, n = 0;
    if (strcmp(c, "put-unregistered") == 0 && last()) {
        bsp_put(0, &v, y, 0, sizeof v);
    } else if (strcmp(c, "get-unregistered") == 0 && last()) {
        bsp_get(0, y, 0, &v, sizeof v);
    } else if (strcmp(c, "put-past-extent") == 0) {
        registered(x);
        if (last()) {
            bsp_put(0, &v, x, 14, sizeof v);
        }
    } else if (strcmp(c, "get-past-extent") == 0) {
        registered(x);
        if (last()) {
            bsp_get(0, x, 16, &v, 1);
        }
    } else if (strcmp(c, "put-past-extent-after-puts") == 0) {
        /* The same after puts into the registration: the first checked in full, the next to
         * the same process and to another one by the quick path. */
        registered(x);
        if (last()) {
            bsp_put(0, &v, x, 0, sizeof v);
            bsp_put(0, &v, x, 4, sizeof v);
            bsp_put(1, &v, x, 8, sizeof v);
            bsp_put(0, &v, x, 14, sizeof v);
        }
    } else if (strcmp(c, "get-past-extent-after-gets") == 0) {
        /* The same for gets: the first checked in full, the next from the same address and
         * process by the quick path. */
        registered(x);
        if (last()) {
            bsp_get(0, x, 0, &y[0], sizeof v);
            bsp_get(0, x, 4, &y[1], sizeof v);
            bsp_get(0, x, 13, &y[2], sizeof v);
        }
    } else if (strcmp(c, "get-negative-offset-after-gets") == 0) {
        registered(x);
        if (last()) {
            bsp_get(0, x, 0, &y[0], sizeof v);
            bsp_get(0, x, -4, &y[1], sizeof v);
        }
    } else if (strcmp(c, "put-negative-offset-after-puts") == 0) {
        registered(x);
        if (last()) {
            bsp_put(0, &v, x, 0, sizeof v);
            bsp_put(0, &v, x, -4, sizeof v);
        }
    } else if (strcmp(c, "put-bad-pid-after-puts") == 0) {
        registered(x);
        if (last()) {
            bsp_put(0, &v, x, 0, sizeof v);
            bsp_put(1, &v, x, 0, sizeof v);
            bsp_put(-1, &v, x, 0, sizeof v);
        }
    } else if (strcmp(c, "put-before-effective") == 0) {
        bsp_push_reg(x, sizeof x);
        if (last()) {
            bsp_put(0, &v, x, 0, sizeof v);
        }
    } else if (strcmp(c, "put-after-pop") == 0) {
        registered(x);
        if (last()) {
            bsp_put(0, &v, x, 0, sizeof v); /* lands: popped, the registration lasts until the sync */
        }
        bsp_pop_reg(x);
        if (last()) {
            bsp_put(0, &v, x, 4, sizeof v);
        }
        bsp_sync();
        if (last()) {
            bsp_put(0, &v, x, 0, sizeof v);
        }
    } else if (strcmp(c, "pop-unregistered") == 0 && last()) {
        bsp_pop_reg(y);
    } else if (strcmp(c, "pop-twice") == 0) {
        registered(x);
        bsp_pop_reg(x);
        if (last()) {
            bsp_pop_reg(x);
        }
    } else if (strcmp(c, "pop-different") == 0) {
        bsp_push_reg(x, sizeof x);
        bsp_push_reg(y, sizeof y);
        bsp_sync();
        bsp_pop_reg(last() ? y : x);
    } else if (strcmp(c, "push-count") == 0) {
        bsp_push_reg(x, sizeof x);
        if (last()) {
            bsp_push_reg(y, sizeof y);
        }
    } else if (strcmp(c, "push-negative") == 0 && last()) {
        bsp_push_reg(x, -4);
    } else if (strcmp(c, "push-null-size") == 0 && last()) {
        bsp_push_reg(NULL, 4);
    } else if (strcmp(c, "put-negative-size") == 0) {
        registered(x);
        if (last()) {
            bsp_put(0, &v, x, 0, -1);
        }
    } else if (strcmp(c, "get-negative-offset") == 0) {
        registered(x);
        if (last()) {
            bsp_get(0, x, -4, &v, sizeof v);
        }
    } else if (strcmp(c, "put-bad-pid") == 0) {
        registered(x);
        if (last()) {
            bsp_put(bsp_nprocs(), &v, x, 0, sizeof v);
        }
    } else if (strcmp(c, "put-null-registration") == 0) {
        bsp_push_reg(bsp_pid() == 0 ? NULL : x, bsp_pid() == 0 ? 0 : (int)sizeof x);
        bsp_sync();
        if (last()) {
            bsp_put(0, &v, x, 0, sizeof v);
        }
    } else if (strcmp(c, "tagsize-negative") == 0 && last()) {
        n = -1;
        bsp_set_tagsize(&n);
    } else if (strcmp(c, "tagsize-different") == 0) {
        n = last() ? 8 : 4;
        bsp_set_tagsize(&n);
    } else if (strcmp(c, "send-negative") == 0 && last()) {
        bsp_send(0, NULL, &v, -2);
    } else if (strcmp(c, "move-empty") == 0 && last()) {
        bsp_move(&v, sizeof v);
    } else if (strcmp(c, "move-negative") == 0) {
        bsp_send(bsp_pid(), NULL, &v, sizeof v);
        bsp_sync();
        if (last()) {
            bsp_move(&v, -1);
        }
    } else if (strcmp(c, "never-syncs") == 0) {
        /* Not a misuse the library can see: the watchdog reports where each process waits. */
        if (last()) {
            for (;;) {
                bsp_time();
            }
        }
    } else if (strcmp(c, "pending-at-end") == 0) {
        registered(x);
        if (last()) {
            bsp_put(0, &v, x, 0, sizeof v);
            bsp_put(0, &v, x, 4, sizeof v);
            bsp_put(1, &v, x, 0, sizeof v);
        }
        bsp_end();
        return 0;
    } else if (strcmp(c, "sync-and-end") == 0) {
        if (!last()) {
            bsp_sync();
        }
        bsp_end();
        return 0;
    } else if (strcmp(c, "begin-twice") == 0 && last()) {
        bsp_begin(bsp_nprocs());
    } else if (strcmp(c, "gp-not-malloc") == 0 || strcmp(c, "gp-not-local") == 0) {
        int g = GP_Create_handle();
        int dims[1] = {bsp_nprocs()};
        GP_Set_dimensions(g, 1, dims);
        GP_Allocate(g);
        int sub[1] = {strcmp(c, "gp-not-local") == 0 && last() ? 0 : bsp_pid()};
        if (strcmp(c, "gp-not-malloc") == 0 && last()) {
            GP_Assign_local_element(g, sub, &v, sizeof v);
        } else if (last()) {
            void *at;
            GP_Access_element(g, sub, &at, &n);
        }
    } else if (strcmp(c, "gp-put-unassigned") == 0 || strcmp(c, "gp-put-too-long") == 0) {
        /* Element 0 is process 0's; it assigns it (4 bytes) only in the second case. */
        int g = GP_Create_handle();
        int dims[1] = {bsp_nprocs()};
        GP_Set_dimensions(g, 1, dims);
        GP_Allocate(g);
        int zero[1] = {0};
        if (strcmp(c, "gp-put-too-long") == 0 && bsp_pid() == 0) {
            int *held = GP_Malloc(sizeof *held);
            GP_Assign_local_element(g, zero, held, sizeof *held);
        }
        bsp_sync();
        if (last()) {
            long long big = 7;
            void *src[1] = {&big};
            int len[1] = {sizeof big}, ld[1] = {1}, size;
            GP_Put(g, zero, zero, src, ld, len, ld, &size, 0);
        }
    } else if (strcmp(c, "abort") == 0 && last()) {
        bsp_abort("stopping: %d is not %s\n", 42, "enough");
    }
    bsp_sync();
    bsp_end();
    return 0;
}
