/* bsp_init, then the number of processes read from the input by the sequential part, then the
 * SPMD function called by main (the pattern of Bisseling's BSPedupack). */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

static int P;

static void spmd(void) {
    bsp_begin(P);
    /* Process 0 read P; the others (other ranks, under mpirun) learn the count from bsp_nprocs. */
    int p = bsp_nprocs();
    CHECK(bsp_pid() != 0 || p == P);
    int sum = 0;
    bsp_push_reg(&sum, sizeof sum);
    bsp_sync();
    int one = bsp_pid() + 1;
    for (int q = 0; q < bsp_nprocs(); q++) {
        bsp_put(q, &one, &sum, 0, sizeof one); /* the highest pid's value stays */
    }
    bsp_sync();
    CHECK(sum == p);
    printf("process %d of %d\n", bsp_pid(), bsp_nprocs());
    bsp_pop_reg(&sum);
    bsp_sync();
    bsp_end();
}

int main(int argc, char **argv) {
    bsp_init(spmd, argc, argv);
    printf("How many processes? ");
    if (scanf("%d", &P) != 1) {
        fprintf(stderr, "no number on the input\n");
        return EXIT_FAILURE;
    }
    printf("\n");
    spmd();
    printf("done on %d processes\n", P);
    return EXIT_SUCCESS;
}
