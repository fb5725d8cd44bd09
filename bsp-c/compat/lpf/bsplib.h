/*
 * lpf/bsplib.h for programs written against LPF's BSPlib layer, on bsp's C library: each
 * bsplib_* function calls the bsp.h function of the same name (the bsplib_t handle carries
 * nothing). Build with `bspcc -I bsp-c/compat prog.c`.
 *
 * Every call returns BSPLIB_SUCCESS. A misuse that LPF's layer reports with an error code (an
 * unregistered address, an access out of range, a pid out of range, registrations that differ
 * between processes, NULL where memory is needed) ends the program with bsp's message instead,
 * as a bsp.h call does; so do sizes and offsets beyond BSPlib's int. bsplib_create's safemode
 * and max_hp_regs are accepted and ignored (bsp checks every call), and bsplib_hpsend sends as
 * bsplib_send does (the payload and tag are copied at the call).
 */
#ifndef BSPC_COMPAT_LPF_BSPLIB_H
#define BSPC_COMPAT_LPF_BSPLIB_H

#include <limits.h>
#include <stddef.h>

#include <bsp.h>
#include <lpf/core.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bspc_lpf_bsplib *bsplib_t;

typedef enum bsplib_err {
    BSPLIB_SUCCESS,
    BSPLIB_ERR_OUT_OF_MEMORY,
    BSPLIB_ERR_MEMORY_NOT_REGISTERED,
    BSPLIB_ERR_PUSHREG_MISMATCH,
    BSPLIB_ERR_POPREG_MISMATCH,
    BSPLIB_ERR_TAGSIZE_MISMATCH,
    BSPLIB_ERR_NULL_POINTER,
    BSPLIB_ERR_PID_OUT_OF_RANGE,
    BSPLIB_ERR_MEMORY_ACCESS_OUT_OF_RANGE,
    BSPLIB_ERR_EMPTY_MESSAGE_QUEUE,
    BSPLIB_ERR_FATAL
} bsplib_err_t;

/* A size or offset as BSPlib's int, or the end of the program naming the call. */
static inline int bspc_lpf_int(const char *op, const char *what, size_t n) {
    if (n > (size_t)INT_MAX) {
        bsp_abort("%s: the %s %zu is more than BSPlib's int can hold\n", op, what, n);
    }
    return (int)n;
}

static inline bsplib_err_t bsplib_create(lpf_t ctx, lpf_pid_t pid, lpf_pid_t nprocs, int safemode,
                                         size_t max_hp_regs, bsplib_t *bsplib) {
    (void)ctx;
    (void)safemode;
    (void)max_hp_regs;
    if (pid != (lpf_pid_t)bsp_pid() || nprocs != (lpf_pid_t)bsp_nprocs()) {
        bsp_abort("bsplib_create: pid %u of %u is not this process (%d of %d)\n", pid, nprocs, bsp_pid(),
                  bsp_nprocs());
    }
    *bsplib = (bsplib_t)0;
    return BSPLIB_SUCCESS;
}

static inline bsplib_err_t bsplib_destroy(bsplib_t bsplib) {
    (void)bsplib;
    return BSPLIB_SUCCESS;
}

static inline double bsplib_time(bsplib_t bsplib) {
    (void)bsplib;
    return bsp_time();
}

static inline lpf_pid_t bsplib_nprocs(bsplib_t bsplib) {
    (void)bsplib;
    return (lpf_pid_t)bsp_nprocs();
}

static inline lpf_pid_t bsplib_pid(bsplib_t bsplib) {
    (void)bsplib;
    return (lpf_pid_t)bsp_pid();
}

static inline bsplib_err_t bsplib_sync(bsplib_t bsplib) {
    (void)bsplib;
    bsp_sync();
    return BSPLIB_SUCCESS;
}

static inline bsplib_err_t bsplib_push_reg(bsplib_t bsplib, const void *ident, size_t size) {
    (void)bsplib;
    bsp_push_reg(ident, bspc_lpf_int("bsplib_push_reg", "size", size));
    return BSPLIB_SUCCESS;
}

static inline bsplib_err_t bsplib_pop_reg(bsplib_t bsplib, const void *ident) {
    (void)bsplib;
    bsp_pop_reg(ident);
    return BSPLIB_SUCCESS;
}

static inline bsplib_err_t bsplib_put(bsplib_t bsplib, lpf_pid_t dst_pid, const void *src, void *dst,
                                      size_t offset, size_t nbytes) {
    (void)bsplib;
    bsp_put((int)dst_pid, src, dst, bspc_lpf_int("bsplib_put", "offset", offset),
            bspc_lpf_int("bsplib_put", "length", nbytes));
    return BSPLIB_SUCCESS;
}

static inline bsplib_err_t bsplib_hpput(bsplib_t bsplib, lpf_pid_t dst_pid, const void *src, void *dst,
                                        size_t offset, size_t nbytes) {
    (void)bsplib;
    bsp_hpput((int)dst_pid, src, dst, bspc_lpf_int("bsplib_hpput", "offset", offset),
              bspc_lpf_int("bsplib_hpput", "length", nbytes));
    return BSPLIB_SUCCESS;
}

static inline bsplib_err_t bsplib_get(bsplib_t bsplib, lpf_pid_t src_pid, const void *src, size_t offset,
                                      void *dst, size_t nbytes) {
    (void)bsplib;
    bsp_get((int)src_pid, src, bspc_lpf_int("bsplib_get", "offset", offset), dst,
            bspc_lpf_int("bsplib_get", "length", nbytes));
    return BSPLIB_SUCCESS;
}

static inline bsplib_err_t bsplib_hpget(bsplib_t bsplib, lpf_pid_t src_pid, const void *src, size_t offset,
                                        void *dst, size_t nbytes) {
    (void)bsplib;
    bsp_hpget((int)src_pid, src, bspc_lpf_int("bsplib_hpget", "offset", offset), dst,
              bspc_lpf_int("bsplib_hpget", "length", nbytes));
    return BSPLIB_SUCCESS;
}

/* Returns the tag size in force before the call, as bsp_set_tagsize does. */
static inline size_t bsplib_set_tagsize(bsplib_t bsplib, size_t tagsize) {
    (void)bsplib;
    int size = bspc_lpf_int("bsplib_set_tagsize", "tag size", tagsize);
    bsp_set_tagsize(&size);
    return (size_t)size;
}

static inline bsplib_err_t bsplib_send(bsplib_t bsplib, lpf_pid_t dst_pid, const void *tag, const void *payload,
                                       size_t nbytes) {
    (void)bsplib;
    bsp_send((int)dst_pid, tag, payload, bspc_lpf_int("bsplib_send", "length", nbytes));
    return BSPLIB_SUCCESS;
}

static inline bsplib_err_t bsplib_hpsend(bsplib_t bsplib, lpf_pid_t dst_pid, const void *tag,
                                         const void *payload, size_t nbytes) {
    (void)bsplib;
    bsp_send((int)dst_pid, tag, payload, bspc_lpf_int("bsplib_hpsend", "length", nbytes));
    return BSPLIB_SUCCESS;
}

static inline bsplib_err_t bsplib_qsize(bsplib_t bsplib, size_t *nmessages, size_t *accum_bytes) {
    (void)bsplib;
    int n = 0, bytes = 0;
    bsp_qsize(&n, &bytes);
    *nmessages = (size_t)n;
    *accum_bytes = (size_t)bytes;
    return BSPLIB_SUCCESS;
}

/* *status is the first message's payload size, or (size_t)-1 if the queue is empty. */
static inline bsplib_err_t bsplib_get_tag(bsplib_t bsplib, size_t *status, void *tag) {
    (void)bsplib;
    int s = -1;
    bsp_get_tag(&s, tag);
    *status = s < 0 ? (size_t)-1 : (size_t)s;
    return BSPLIB_SUCCESS;
}

static inline bsplib_err_t bsplib_move(bsplib_t bsplib, void *payload, size_t reception_bytes) {
    (void)bsplib;
    bsp_move(payload, bspc_lpf_int("bsplib_move", "reception length", reception_bytes));
    return BSPLIB_SUCCESS;
}

/* The first message's payload size, or (size_t)-1 if the queue is empty. */
static inline size_t bsplib_hpmove(bsplib_t bsplib, const void **tag_ptr, const void **payload_ptr) {
    (void)bsplib;
    int n = bsp_hpmove((void **)tag_ptr, (void **)payload_ptr);
    return n < 0 ? (size_t)-1 : (size_t)n;
}

#ifdef __cplusplus
}
#endif

#endif /* BSPC_COMPAT_LPF_BSPLIB_H */
