/* bsp_begin as the first statement of main: the other processes run main again from the start. */
#include <stdio.h>
#include <string.h>

#include "check.h"

int main(int argc, char **argv) {
    bsp_begin(bsp_nprocs());
    /* Every process sees the program's arguments. */
    CHECK(argc == 2 && strcmp(argv[1], "arg") == 0);
    int x = bsp_pid();
    bsp_push_reg(&x, sizeof x);
    bsp_sync();
    int right = -1;
    bsp_get((bsp_pid() + 1) % bsp_nprocs(), &x, 0, &right, sizeof right);
    bsp_sync();
    printf("process %d of %d: right neighbour %d\n", bsp_pid(), bsp_nprocs(), right);
    bsp_pop_reg(&x);
    bsp_sync();
    bsp_end();
    printf("after bsp_end: once\n");
    return 0;
}
