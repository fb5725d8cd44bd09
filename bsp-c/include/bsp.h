/*
 * bsp.h: BSPlib's C interface on the `bsp` runtime (library `bspc`; `bspcc` compiles and links).
 *
 * Every function of the BSPlib manual pages, with the manual's C signatures. The same binary runs
 * on threads (started directly), on MPI (started by `mpirun`, with the library built with the
 * `mpi` feature) and on the hybrid engine (`BSP_THREADS` under `mpirun`).
 *
 * The three integer types are those of the BSPlib dialects in use: a process id, a number of
 * processes, and a size or offset in bytes. They are all `int`, as in the manual, so a program
 * written against the manual, against BSPonMPI's header or against MulticoreBSP's (which name
 * these types) compiles unchanged.
 *
 * Misuse (an unregistered address, an offset past the extent the target registered, a
 * negative size, registrations that differ between processes, ...) ends the program with a
 * message naming the process, the call and the values, and exit status 1, as bsp_abort does.
 */
#ifndef BSP_H
#define BSP_H

#ifdef __cplusplus
extern "C" {
#endif

/** A process id, 0 .. bsp_nprocs() - 1. */
typedef int bsp_pid_t;
/** A number of processes, or of messages. */
typedef int bsp_nprocs_t;
/** A size or an offset, in bytes. */
typedef int bsp_size_t;

#if defined(__GNUC__) || defined(__clang__)
#define BSP_PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#define BSP_NORETURN __attribute__((noreturn))
#else
#define BSP_PRINTF_LIKE(f, a)
#define BSP_NORETURN
#endif

/* ---- Starting and ending the SPMD part ---- */

/**
 * Starts the SPMD part on `maxprocs` processes; the caller goes on as process 0. It is the
 * first statement of the SPMD function: either `main`, whose other processes then run `main`
 * again from the start, or the function given to bsp_init, which the other processes run.
 * Under `mpirun -n R`, `maxprocs` may be at most R: ranks 0 .. maxprocs - 1 run, the others end
 * here with status 0; process 0's `maxprocs` counts. With BSP_THREADS=T under mpirun, each rank
 * runs T processes as threads and `maxprocs` must be R * T.
 */
void bsp_begin(bsp_nprocs_t maxprocs);

/** Ends the SPMD part: the last statement of the SPMD function. Only process 0 goes on. */
void bsp_end(void);

/**
 * Names the SPMD function when it is not `main` (the first statement of `main`): the function
 * whose first statement is bsp_begin, run by every process but the caller.
 */
void bsp_init(void (*spmd)(void), int argc, char **argv);

/** Stops every process, printing the printf-style message; the program exits with status 1. */
void bsp_abort(const char *format, ...) BSP_PRINTF_LIKE(1, 2) BSP_NORETURN;

/* ---- Enquiry ---- */

/** The number of processes; before bsp_begin, how many bsp_begin(bsp_nprocs()) would start. */
bsp_nprocs_t bsp_nprocs(void);

/** This process's id. */
bsp_pid_t bsp_pid(void);

/** Seconds since this process started (each process has its own clock). */
double bsp_time(void);

/* ---- The superstep ---- */

/** Ends the superstep: every process waits for the others, and all communication completes. */
void bsp_sync(void);

/* ---- Direct remote memory access ---- */

/**
 * Registers `size` bytes at `ident`, collectively (the i-th push of every process form one
 * registration), effective from the next bsp_sync. A process that takes no part registers NULL
 * with size 0.
 */
void bsp_push_reg(const void *ident, bsp_size_t size);

/** Ends the newest registration of `ident`, collectively, at the next bsp_sync. */
void bsp_pop_reg(const void *ident);

/** Copies `nbytes` at `src` now; they land at `offset` of `dst`'s registration on `pid` at the sync. */
void bsp_put(bsp_pid_t pid, const void *src, void *dst, bsp_size_t offset, bsp_size_t nbytes);

/** As bsp_put, but `src` is read during the next sync: it must not change before. */
void bsp_hpput(bsp_pid_t pid, const void *src, void *dst, bsp_size_t offset, bsp_size_t nbytes);

/**
 * Reads `nbytes` at `offset` of `src`'s registration on `pid` at the next sync, before any put
 * lands, into `dst`. `dst` holds its old contents until that sync.
 */
void bsp_get(bsp_pid_t pid, const void *src, bsp_size_t offset, void *dst, bsp_size_t nbytes);

/** As bsp_get (unbuffered). */
void bsp_hpget(bsp_pid_t pid, const void *src, bsp_size_t offset, void *dst, bsp_size_t nbytes);

/* ---- Bulk synchronous message passing ---- */

/**
 * Asks for tags of `*tag_nbytes` bytes from the next sync on (collectively); on return
 * `*tag_nbytes` is the tag size in force now.
 */
void bsp_set_tagsize(bsp_size_t *tag_nbytes);

/** Sends a message (a tag of the size in force, and `payload_nbytes` bytes) to `pid`, copied now. */
void bsp_send(bsp_pid_t pid, const void *tag, const void *payload, bsp_size_t payload_nbytes);

/** The number of messages left in the queue and the sum of their payload lengths (NULL: not wanted). */
void bsp_qsize(bsp_nprocs_t *nmessages, bsp_size_t *accum_nbytes);

/** The first message's payload length in `*status` (-1 if the queue is empty), and its tag in `tag`. */
void bsp_get_tag(bsp_size_t *status, void *tag);

/** Copies the first message's payload (at most `reception_nbytes` bytes) and removes it. */
void bsp_move(void *payload, bsp_size_t reception_nbytes);

/**
 * Removes the first message and points `*tag_ptr_buf` and `*payload_ptr_buf` at its tag and
 * payload in the receive buffer (valid until the next sync); returns the payload length, or -1
 * if the queue is empty.
 */
bsp_size_t bsp_hpmove(void **tag_ptr_buf, void **payload_ptr_buf);

#ifdef __cplusplus
}
#endif

#endif /* BSP_H */
