/* Hello from every process, then each process's neighbour's pid fetched with bsp_get.
 *
 *   bsp-c/bspcc examples/c/hello.c -o hello && BSP_NPROCS=4 ./hello
 *   bsp-c/bspcc --mpi examples/c/hello.c -o hello && mpirun -n 4 ./hello
 */
#include <stdio.h>

#include <bsp.h>

int main(void) {
    bsp_begin(bsp_nprocs());
    int p = bsp_nprocs();
    int s = bsp_pid();

    int mine = s;
    bsp_push_reg(&mine, sizeof mine); /* effective at the next sync */
    bsp_sync();

    int right = -1;
    bsp_get((s + 1) % p, &mine, 0, &right, sizeof right); /* `right` changes at the sync */
    bsp_sync();
    printf("Hello from process %d of %d; my right neighbour is %d\n", s, p, right);

    bsp_pop_reg(&mine);
    bsp_sync();
    bsp_end();
    return 0;
}
