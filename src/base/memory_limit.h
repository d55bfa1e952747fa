/*
 * memory_limit.h - how much memory the library may hold in a process
 * (TRMS_MEMORY_LIMIT; vm.h applies it): by default a share of what the
 * process itself may have, so that the profiler is never the reason it
 * runs out: a quarter of the machine's memory or of the process's
 * control group's limit, and an eighth of what RLIMIT_AS and RLIMIT_DATA
 * leave it at start, whichever is least.
 */
#ifndef TRMS_MEMORY_LIMIT_H
#define TRMS_MEMORY_LIMIT_H

#include <stddef.h>

/* The default limit, in bytes (never 0: at least MEMORY_LIMIT_FLOOR). */
size_t memory_limit_default(void);

#define MEMORY_LIMIT_FLOOR ((size_t)16 << 20)

/* The machine's memory, in bytes (0 if unknown). */
size_t memory_physical(void);

#endif
