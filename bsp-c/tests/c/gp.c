/* The GP C API (bsp_gp.h, from Global Arrays' gp_api): an array of byte blobs, assigned
 * locally from GP_Malloc memory, read with GP_Get and GP_Gather (results at the sync), written
 * with GP_Put and GP_Scatter, zeroed, and torn down as the API's documentation shows. Any
 * number of processes. Prints one line per rule on process 0. */
#include <stdio.h>
#include <string.h>

#include <bsp_gp.h>

#include "check.h"

static void say(const char *rule) {
    if (bsp_pid() == 0) {
        printf("ok: %s\n", rule);
    }
}

/* Element (i, j) of a 4 x 3 array holds i + j + 1 ints, each 10 * i + j. */
static int value(int i, int j) {
    return 10 * i + j;
}

int main(void) {
    bsp_begin(bsp_nprocs());
    int p = bsp_nprocs(), s = bsp_pid();
    GP_Initialize();
    int g = GP_Create_handle();
    int dims[2] = {4, 3};
    GP_Set_dimensions(g, 2, dims);
    CHECK(GP_Allocate(g) == 1);

    /* Every element belongs to exactly one process. */
    int owned = 0;
    for (int q = 0; q < p; q++) {
        int lo[2], hi[2];
        GP_Distribution(g, q, lo, hi);
        if (lo[0] <= hi[0] && lo[1] <= hi[1]) {
            owned += (hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1);
        }
    }
    CHECK(owned == 12);
    say("GP_Distribution splits the array among the processes");

    int lo[2], hi[2];
    GP_Distribution(g, s, lo, hi);
    for (int i = lo[0]; i <= hi[0]; i++) {
        for (int j = lo[1]; j <= hi[1]; j++) {
            int n = i + j + 1;
            int *blob = GP_Malloc(n * sizeof(int));
            for (int k = 0; k < n; k++) {
                blob[k] = value(i, j);
            }
            int sub[2] = {i, j};
            GP_Assign_local_element(g, sub, blob, n * (int)sizeof(int));
            void *at = NULL;
            int size = -1;
            GP_Access_element(g, sub, &at, &size);
            CHECK(at == blob && size == n * (int)sizeof(int)); /* the element is that memory */
            GP_Release_element(g, sub);
        }
    }
    GP_Sync();
    say("GP_Assign_local_element makes GP_Malloc memory an element");

    /* The whole array from every process: size first, then the data. */
    int alo[2] = {0, 0}, ahi[2] = {3, 2};
    int total = -1;
    GP_Get_size(g, alo, ahi, &total);
    CHECK(total == -1); /* written at the sync */
    GP_Sync();
    int expected = 0;
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 3; j++) {
            expected += (i + j + 1) * (int)sizeof(int);
        }
    }
    CHECK(total == expected);
    char buf[1024];
    void *ptrs[5][4]; /* wider than the patch: ld = 4 */
    int sizes[4][3];  /* ld_sz = 3 */
    int ld = 4, ld_sz = 3, size = -1;
    GP_Get(g, alo, ahi, buf, &ptrs[0][0], &ld, &sizes[0][0], &ld_sz, &size, 0);
    GP_Sync();
    CHECK(size == expected);
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 3; j++) {
            CHECK(sizes[i][j] == (i + j + 1) * (int)sizeof(int));
            int *e = ptrs[i][j];
            CHECK(e[0] == value(i, j) && e[i + j] == value(i, j));
        }
    }
    say("GP_Get and GP_Get_size give the patch at the sync, in GA's layout");

    /* GP_Get into the caller's own buffers (setbuf), a 1 x 2 patch. */
    int row[2][8];
    void *into[2] = {row[0], row[1]};
    int room[2] = {sizeof row[0], sizeof row[1]};
    int plo[2] = {2, 1}, phi[2] = {2, 2}, two = 2;
    size = -1;
    GP_Get(g, plo, phi, NULL, into, &two, room, &two, &size, 1);
    GP_Sync();
    CHECK(row[0][0] == value(2, 1) && row[1][4] == value(2, 2) && size == (4 + 5) * (int)sizeof(int));
    say("GP_Get with setbuf copies into the caller's elements");

    /* GP_Gather: three elements, one listed twice. */
    int list[6] = {3, 2, 0, 0, 3, 2};
    int gsize = -1;
    GP_Gather_size(g, 3, list, &gsize);
    void *gptr[3];
    int gsz[3];
    GP_Gather(g, 3, list, buf, gptr, gsz, &size, 0);
    GP_Sync();
    CHECK(gsize == (6 + 1 + 6) * (int)sizeof(int) && size == gsize);
    CHECK(gsz[0] == 6 * (int)sizeof(int) && gsz[1] == (int)sizeof(int));
    CHECK(((int *)gptr[0])[5] == value(3, 2) && ((int *)gptr[1])[0] == value(0, 0) && gptr[2] != gptr[0]);
    say("GP_Gather and GP_Gather_size");

    /* GP_Put: process p - 1 writes the first ints of row 0; the put lands at the sync. */
    if (s == p - 1) {
        int a = -1, b[2] = {-2, -2}, c[3] = {-3, -3, -3};
        void *src[3] = {&a, b, c};
        int len[3] = {sizeof a, sizeof b, sizeof c};
        int rlo[2] = {0, 0}, rhi[2] = {0, 2}, three = 3;
        size = 0;
        GP_Put(g, rlo, rhi, src, &three, len, &three, &size, 1);
        CHECK(size == 6 * (int)sizeof(int));
    }
    GP_Sync();
    /* GP_Scatter: every process writes its pid into the first int of element (3, 0). */
    int mine = 100 + s, mlen = sizeof mine, msub[2] = {3, 0};
    void *msrc = &mine;
    GP_Scatter(g, 1, msub, &msrc, &mlen, &size, 0);
    GP_Sync();
    int rlo[2] = {0, 0}, rhi[2] = {3, 2};
    GP_Get(g, rlo, rhi, buf, &ptrs[0][0], &ld, &sizes[0][0], &ld_sz, &size, 0);
    GP_Sync();
    CHECK(((int *)ptrs[0][0])[0] == -1 && ((int *)ptrs[0][2])[2] == -3 && ((int *)ptrs[0][2])[0] == -3);
    CHECK(((int *)ptrs[3][0])[0] == 100 + p - 1 && ((int *)ptrs[3][0])[1] == value(3, 0));
    say("GP_Put and GP_Scatter land at the sync, the highest pid last");

    GP_Memzero(g);
    GP_Get(g, rlo, rhi, buf, &ptrs[0][0], &ld, &sizes[0][0], &ld_sz, &size, 0);
    GP_Sync();
    for (int k = 0; k < size; k++) {
        CHECK(buf[k] == 0);
    }
    say("GP_Memzero");

    /* The teardown of the API's documentation. */
    for (int i = lo[0]; i <= hi[0]; i++) {
        for (int j = lo[1]; j <= hi[1]; j++) {
            int sub[2] = {i, j};
            GP_Free(GP_Free_local_element(g, sub));
            void *at = &at;
            int sz = -1;
            GP_Access_element(g, sub, &at, &sz);
            CHECK(at == NULL && sz == 0);
        }
    }
    CHECK(GP_Destroy(g) == 1);
    GP_Terminate();
    say("GP_Free_local_element, GP_Free and GP_Destroy");
    bsp_end();
    return 0;
}
