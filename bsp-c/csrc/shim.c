/*
 * What BSPlib's C interface needs that Rust cannot write: the printf-style formatting of
 * bsp_abort (a variadic function), leaving the SPMD function at bsp_end on the processes that
 * do not go on (setjmp/longjmp, across C frames only), and the calling thread's process in a
 * thread-local variable of the initial-exec model. The library's public functions are defined
 * in Rust (src/lib.rs); these helpers are hidden.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#define HIDDEN __attribute__((visibility("hidden")))

/* Defined in Rust. */
extern void bspc_abort_message(const char *message);

/* The calling thread's process (Rust's `Proc`) and its context (the runtime's `Ctx`), between
 * bsp_begin and bsp_end. The initial-exec model reads each with one load from the thread
 * pointer; Rust's thread-locals in a shared library take a call to __tls_get_addr, which costs
 * a one-word bsp_put about a fifth of its instructions. On x86-64 the library's Rust code reads
 * them itself (an inline `mov` from %fs, src/lib.rs), so they have names the assembler can see;
 * they are hidden from the library's users. bsp_put's quick path needs only the context: kept
 * here, it is one load away instead of two. (A library with such variables can still be loaded
 * by dlopen: glibc keeps spare room for a few static TLS bytes.) */
HIDDEN __thread void *bspc_current_proc __attribute__((tls_model("initial-exec")));
HIDDEN __thread void *bspc_current_ctx __attribute__((tls_model("initial-exec")));

HIDDEN void *bspc_current(void) {
    return bspc_current_proc;
}

HIDDEN void *bspc_current_context(void) {
    return bspc_current_ctx;
}

HIDDEN void bspc_set_current(void *proc, void *ctx) {
    bspc_current_proc = proc;
    bspc_current_ctx = ctx;
}

/* The program's main, run again by the other processes when it is the SPMD function. Weak, so
 * that the library links into programs whose main is not C's. */
extern int main(int argc, char **argv) __attribute__((weak));

static int saved_argc;
static char **saved_argv;

/* glibc gives the functions of .init_array the program's arguments: main can then be run again
 * with them when the program does not call bsp_init. */
static void grab_arguments(int argc, char **argv, char **envp) {
    (void)envp;
    saved_argc = argc;
    saved_argv = argv;
}
__attribute__((section(".init_array"), used)) static void (*grab_arguments_entry)(int, char **, char **) =
    grab_arguments;

HIDDEN void bspc_set_arguments(int argc, char **argv) {
    saved_argc = argc;
    saved_argv = argv;
}

/* Where bsp_end returns to on a process that does not go on after it. */
static __thread jmp_buf *leave_to;

/* Runs one process's SPMD function: `spmd`, or main if it is NULL. Returns when the function
 * returns or when it calls bsp_end (bspc_leave). Returns 0 if there was nothing to run. */
HIDDEN int bspc_run_spmd(void (*spmd)(void)) {
    jmp_buf here;
    jmp_buf *volatile outer = leave_to;
    if (spmd == NULL && main == NULL) {
        return 0;
    }
    leave_to = &here;
    if (setjmp(here) == 0) {
        if (spmd != NULL) {
            spmd();
        } else {
            main(saved_argc, saved_argv);
        }
    }
    leave_to = outer;
    return 1;
}

/* bsp_end on a process that does not go on: back to bspc_run_spmd. The frames left are the
 * program's (C) and bsp_end's, which holds nothing to drop at that point. */
HIDDEN __attribute__((noreturn)) void bspc_leave(void) {
    longjmp(*leave_to, 1);
}

/* The body of bsp_abort (which jumps here with its arguments untouched). */
HIDDEN __attribute__((noreturn)) void bspc_abort_format(const char *format, ...) {
    va_list ap, again;
    va_start(ap, format);
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, format, ap);
    va_end(ap);
    char *message = NULL;
    if (n >= 0) {
        message = malloc((size_t)n + 1);
    }
    if (message != NULL) {
        vsnprintf(message, (size_t)n + 1, format, again);
    }
    va_end(again);
    bspc_abort_message(message != NULL ? message : format);
    abort(); /* bspc_abort_message does not return */
}
