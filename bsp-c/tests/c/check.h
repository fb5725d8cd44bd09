/* What the C tests share: CHECK stops the run with the failed condition and its line. */
#ifndef CHECK_H
#define CHECK_H

#include <bsp.h>

#define CHECK(cond)                                                                      \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            bsp_abort("%s:%d: check failed on process %d: %s", __FILE__, __LINE__,       \
                      bsp_pid(), #cond);                                                 \
        }                                                                                \
    } while (0)

#endif
