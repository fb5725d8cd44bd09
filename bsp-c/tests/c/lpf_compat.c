/* LPF's BSPlib layer through compat/lpf (lpf/core.h, lpf/bsplib.h): lpf_exec starts the SPMD
 * function on every process with its pid, the count and the arguments; each bsplib_* call does
 * what the bsp.h call of the same name does, with LPF's size_t sizes and its "no message"
 * value (size_t)-1. Any number of processes. Prints one line per rule on process 0. */
#include <stdio.h>

#include <lpf/bsplib.h>
#include <lpf/core.h>

#include "check.h"

static void say(const char *rule) {
    if (bsp_pid() == 0) {
        printf("ok: %s\n", rule);
    }
}

static void spmd(lpf_t lpf, lpf_pid_t pid, lpf_pid_t nprocs, lpf_args_t args) {
    bsplib_t b;
    CHECK(args.input_size == sizeof(int) && *(const int *)args.input == 42);
    CHECK(bsplib_create(lpf, pid, nprocs, 1, 0, &b) == BSPLIB_SUCCESS);
    CHECK(bsplib_pid(b) == pid && bsplib_nprocs(b) == nprocs && nprocs == (lpf_pid_t)bsp_nprocs());
    say("lpf_exec runs the SPMD function on every process, with its pid, the count and the arguments");

    lpf_pid_t right = (pid + 1) % nprocs, left = (pid + nprocs - 1) % nprocs;
    int x[2] = {-1, -1}, v = (int)pid, got = -1, hp = -1;
    CHECK(bsplib_push_reg(b, x, sizeof x) == BSPLIB_SUCCESS);
    CHECK(bsplib_sync(b) == BSPLIB_SUCCESS);
    CHECK(bsplib_put(b, right, &v, x, sizeof(int), sizeof(int)) == BSPLIB_SUCCESS);
    v = 99; /* the put copied its source */
    CHECK(bsplib_sync(b) == BSPLIB_SUCCESS);
    CHECK(x[0] == -1 && x[1] == (int)left);
    CHECK(bsplib_get(b, left, x, sizeof(int), &got, sizeof(int)) == BSPLIB_SUCCESS);
    CHECK(got == -1); /* written at the sync */
    CHECK(bsplib_sync(b) == BSPLIB_SUCCESS);
    CHECK(got == (int)((left + nprocs - 1) % nprocs));
    v = 10 + (int)pid;
    CHECK(bsplib_hpput(b, right, &v, x, 0, sizeof(int)) == BSPLIB_SUCCESS);
    CHECK(bsplib_sync(b) == BSPLIB_SUCCESS);
    CHECK(bsplib_hpget(b, right, x, 0, &hp, sizeof(int)) == BSPLIB_SUCCESS);
    CHECK(bsplib_sync(b) == BSPLIB_SUCCESS);
    CHECK(x[0] == 10 + (int)left && hp == 10 + (int)pid);
    CHECK(bsplib_pop_reg(b, x) == BSPLIB_SUCCESS);
    CHECK(bsplib_sync(b) == BSPLIB_SUCCESS);
    say("bsplib_put, bsplib_get, bsplib_hpput and bsplib_hpget land at the sync");

    CHECK(bsplib_set_tagsize(b, sizeof(int)) == 0); /* the size in force before */
    CHECK(bsplib_sync(b) == BSPLIB_SUCCESS);
    size_t n = 7, bytes = 7, status = 7;
    int tag = -1;
    const void *tag_at = NULL, *payload_at = NULL;
    CHECK(bsplib_get_tag(b, &status, &tag) == BSPLIB_SUCCESS && status == (size_t)-1);
    CHECK(bsplib_hpmove(b, &tag_at, &payload_at) == (size_t)-1);
    tag = (int)pid;
    int payload[2] = {(int)pid, 2 * (int)pid};
    CHECK(bsplib_send(b, right, &tag, payload, sizeof payload) == BSPLIB_SUCCESS);
    CHECK(bsplib_hpsend(b, right, &tag, payload, sizeof(int)) == BSPLIB_SUCCESS);
    payload[0] = -7; /* both sends copied their payload */
    CHECK(bsplib_sync(b) == BSPLIB_SUCCESS);
    CHECK(bsplib_qsize(b, &n, &bytes) == BSPLIB_SUCCESS && n == 2 && bytes == 3 * sizeof(int));
    tag = -1;
    CHECK(bsplib_get_tag(b, &status, &tag) == BSPLIB_SUCCESS && status == 2 * sizeof(int) && tag == (int)left);
    int m[2] = {0, 0};
    CHECK(bsplib_move(b, m, sizeof m) == BSPLIB_SUCCESS && m[0] == (int)left && m[1] == 2 * (int)left);
    CHECK(bsplib_hpmove(b, &tag_at, &payload_at) == sizeof(int));
    CHECK(*(const int *)tag_at == (int)left && *(const int *)payload_at == (int)left);
    CHECK(bsplib_set_tagsize(b, 0) == sizeof(int));
    CHECK(bsplib_sync(b) == BSPLIB_SUCCESS);
    say("bsplib_send, bsplib_hpsend, bsplib_qsize, bsplib_get_tag, bsplib_move and bsplib_hpmove");

    CHECK(bsplib_time(b) >= 0.0);
    CHECK(bsplib_destroy(b) == BSPLIB_SUCCESS);
}

int main(void) {
    int input = 42;
    lpf_args_t args = LPF_NO_ARGS;
    args.input = &input;
    args.input_size = sizeof input;
    if (lpf_exec(LPF_ROOT, LPF_MAX_P, spmd, args) != LPF_SUCCESS) {
        return 1;
    }
    printf("ok: lpf_exec returns LPF_SUCCESS once the run has ended\n");
    return 0;
}
