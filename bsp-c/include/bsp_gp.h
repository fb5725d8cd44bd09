/*
 * bsp_gp.h: Global Arrays' GP (global pointer) C API on the `bsp` runtime's GP arrays, in the
 * same library as bsp.h (link with bspc). Use it between bsp_begin and bsp_end.
 *
 * A GP array is an array of up to 7 dimensions whose elements are byte blobs of any size,
 * split into one block per process as Global Arrays splits it. Subscripts are 0-based in C
 * order and patch bounds lo..hi are inclusive. Sizes are in bytes.
 *
 * What differs from Global Arrays, where bsp's model decides:
 * - One-sided operations (GP_Get, GP_Gather, GP_Put, GP_Scatter and the size calls) complete at
 *   the next sync, GP_Sync or bsp_sync: the results of GP_Get, GP_Gather, GP_Get_size and
 *   GP_Gather_size are written into the caller's buffers then, and until then they hold their
 *   old contents. Reads see the elements as they are at the end of the superstep, before any
 *   put of that superstep lands. GP_Put and GP_Scatter copy their data at the call.
 * - GP_Allocate, GP_Destroy, GP_Memzero and GP_Terminate are collective and include a sync.
 * - GP_Destroy frees the memory of the elements still assigned.
 * Misuse (a subscript out of range or not local, memory not from GP_Malloc, a size that differs
 * from GP_Malloc's) ends the program with a message, as bsp.h's functions do.
 */
#ifndef BSP_GP_H
#define BSP_GP_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Checks that the SPMD part has begun (the arrays need nothing more). */
void GP_Initialize(void);
/** Destroys every array still allocated (collective). */
void GP_Terminate(void);

/** A new handle, to give dimensions and then GP_Allocate. */
int GP_Create_handle(void);
/** The array's number of dimensions (1 to 7) and their extents. */
void GP_Set_dimensions(int g_p, int ndim, int *dims);
/** Minimum block extent per axis; a value <= 0 leaves the axis to the library. */
void GP_Set_chunk(int g_p, int *chunk);
/** nblock[d] blocks on axis d (their product is the number of processes); mapc the start of
 * every block, axis after axis. */
void GP_Set_irreg_distr(int g_p, int *mapc, int *nblock);
/** Creates the array (collective, a sync); every element starts unassigned. Returns 1. */
int GP_Allocate(int g_p);
/** Destroys the array (collective, a sync). Returns 1. */
int GP_Destroy(int g_p);
/** The block of process `proc`: lo..hi, or lo = -1, hi = -2 on every axis if it has none. */
void GP_Distribution(int g_p, int proc, int *lo, int *hi);

/** Memory for an element: give it to GP_Assign_local_element, or back to GP_Free. */
void *GP_Malloc(size_t size);
/** Frees memory from GP_Malloc or GP_Free_local_element. */
void GP_Free(void *ptr);
/** The local element at `subscript` becomes the `size` bytes at `ptr` (from GP_Malloc, with
 * the same size); the element is that memory from now on. */
void GP_Assign_local_element(int g_p, int *subscript, void *ptr, int size);
/** Unassigns the local element and returns its memory (for GP_Free), or NULL. */
void *GP_Free_local_element(int g_p, int *subscript);
/** *(void **)ptr and *size receive the local element's address and size (NULL and 0 if
 * unassigned), valid until the next sync. */
void GP_Access_element(int g_p, int *subscript, void *ptr, int *size);
/** After reading a local element through GP_Access_element (checks that it is local). */
void GP_Release_element(int g_p, int *subscript);
/** After changing a local element through GP_Access_element (checks that it is local). */
void GP_Release_update_element(int g_p, int *subscript);

/** The total size of the patch lo..hi, in *size at the next sync. */
void GP_Get_size(int g_p, int *lo, int *hi, int *size);
/** The patch lo..hi, at the next sync: packed into `buf` in row-major order (setbuf == 0),
 * with each element's address in buf_ptr and size in buf_size (laid out with the strides ld and
 * ld_sz, ndim - 1 each) and the total in *size; or, with setbuf != 0, each element copied to its
 * buf_ptr entry, which holds its buf_size entry's bytes. */
void GP_Get(int g_p, int *lo, int *hi, void *buf, void **buf_ptr, int *ld, void *buf_size, int *ld_sz,
            int *size, int setbuf);
/** Writes the elements at buf_ptr (sizes in buf_size; strides ld, ld_sz) into the existing
 * elements of the patch lo..hi at the next sync; copied now; *size is the total. With
 * checksize, a size that differs from the element's is an error. */
void GP_Put(int g_p, int *lo, int *hi, void **buf_ptr, int *ld, void *buf_size, int *ld_sz, int *size,
            int checksize);
/** The total size of the nv elements listed (ndim ints each), in *size at the next sync. */
void GP_Gather_size(int g_p, int nv, int *subscript, int *size);
/** The nv listed elements, at the next sync, as GP_Get does with buf_ptr and buf_size of nv
 * entries. */
void GP_Gather(int g_p, int nv, int *subscript, void *buf, void **buf_ptr, int *buf_size, int *size,
               int setbuf);
/** Writes buf_ptr[k] (buf_size[k] bytes) into the listed element k at the next sync. */
void GP_Scatter(int g_p, int nv, int *subscript, void **buf_ptr, int *buf_size, int *size, int checksize);
/** Zeroes every byte of every element (collective, a sync). */
void GP_Memzero(int g_p);
/** bsp_sync: completes every one-sided operation. */
void GP_Sync(void);

#ifdef __cplusplus
}
#endif

#endif /* BSP_GP_H */
