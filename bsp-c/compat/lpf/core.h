/*
 * lpf/core.h for programs written against LPF's BSPlib layer (lpf/bsplib.h), on bsp's C
 * library: the part of LPF's core API such a program needs to start, lpf_exec from the root
 * context. Build with `bspcc -I bsp-c/compat prog.c` (or `bspcc --mpi ...`).
 *
 * lpf_exec(LPF_ROOT, P, spmd, args) runs spmd on min(P, bsp_nprocs()) processes (LPF_MAX_P:
 * bsp_nprocs(), that is BSP_NPROCS or the cores on threads, the ranks under mpirun) through
 * bsp_init and bsp_begin, as a BSPlib program starts, and returns when they end. BSPlib starts
 * one SPMD part per program, so lpf_exec may be called once. Nothing else of LPF's core API
 * (lpf_put, lpf_sync, lpf_probe, lpf_hook, ...) is here: a program calling it does not compile.
 */
#ifndef BSPC_COMPAT_LPF_CORE_H
#define BSPC_COMPAT_LPF_CORE_H

#include <stddef.h>

#include <bsp.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void *lpf_t;
typedef unsigned lpf_pid_t;
typedef int lpf_err_t;
typedef void (*lpf_func_t)(void);

typedef struct {
    const void *input;
    size_t input_size;
    void *output;
    size_t output_size;
    const lpf_func_t *f_symbols;
    size_t f_size;
} lpf_args_t;

typedef void (*lpf_spmd_t)(const lpf_t ctx, const lpf_pid_t pid, const lpf_pid_t nprocs, const lpf_args_t args);

#define LPF_SUCCESS 0
#define LPF_ROOT ((lpf_t)0)
#define LPF_MAX_P ((lpf_pid_t)-1)
#ifdef __cplusplus
#define LPF_NO_ARGS (lpf_args_t{NULL, 0, NULL, 0, NULL, 0})
#else
#define LPF_NO_ARGS ((lpf_args_t){NULL, 0, NULL, 0, NULL, 0})
#endif

/* What lpf_exec hands to the processes bsp_init starts (set before any of them starts). */
static lpf_spmd_t bspc_lpf_spmd;
static lpf_pid_t bspc_lpf_procs;
static lpf_args_t bspc_lpf_args;

static inline void bspc_lpf_part(void) {
    lpf_pid_t available = (lpf_pid_t)bsp_nprocs();
    bsp_begin((int)(bspc_lpf_procs < available ? bspc_lpf_procs : available));
    bspc_lpf_spmd(LPF_ROOT, (lpf_pid_t)bsp_pid(), (lpf_pid_t)bsp_nprocs(), bspc_lpf_args);
    bsp_end();
}

/* Runs spmd on min(P, bsp_nprocs()) processes; only from the root context, once. */
static inline lpf_err_t lpf_exec(lpf_t ctx, lpf_pid_t P, lpf_spmd_t spmd, lpf_args_t args) {
    if (ctx != LPF_ROOT || P == 0 || spmd == NULL) {
        bsp_abort("lpf_exec: only lpf_exec(LPF_ROOT, P > 0, spmd, args) is supported on bsp\n");
    }
    bspc_lpf_spmd = spmd;
    bspc_lpf_procs = P;
    bspc_lpf_args = args;
    bsp_init(bspc_lpf_part, 0, NULL);
    bspc_lpf_part();
    return LPF_SUCCESS;
}

#ifdef __cplusplus
}
#endif

#endif /* BSPC_COMPAT_LPF_CORE_H */
