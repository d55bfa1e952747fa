/*
 * cells.h - the bulk loops over runs of shadow cells that make range
 * accesses run near memory bandwidth (DESIGN §3, last paragraph).
 *
 * A read of a range is decided per cell by comparing the thread's stamp of
 * the cell (old), the cell's write stamp (w) and the stamp of the innermost
 * activation (top).  Instead of branching per cell, one pass counts how
 * many cells fall in each case; the engine then applies the counts to the
 * shadow stack at once.  Only the rare run whose earlier accesses belong to
 * several different ancestors needs a second, per-cell pass.
 */
#ifndef TRMS_CELLS_H
#define TRMS_CELLS_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/stamp.h"

/* Reads and writes of the shared write-stamp table.  Cells are single
 * machine words and races on them are benign (a racing reader sees the
 * old or the new stamp, either order being a valid serialisation), so the
 * fast build uses plain accesses that the compiler can vectorise; under
 * ThreadSanitizer they are spelled as the relaxed atomics they stand for. */
#if defined(__SANITIZE_THREAD__)
#define CELLS_ATOMIC 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CELLS_ATOMIC 1
#endif
#endif

#ifdef CELLS_ATOMIC
#define SHARED_LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define SHARED_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#else
#define SHARED_LOAD(p) (*(p))
#define SHARED_STORE(p, v) (*(p) = (v))
#endif

struct read_tally {
	size_t first;        /* old < top: not accessed by the top activation */
	size_t first_seen;   /* ... and old != 0: an ancestor accessed it */
	size_t induced;      /* written by someone else since old */
	size_t induced_kernel; /* ... and that write was the kernel's */
	size_t first_own;    /* first and not induced */
	size_t first_own_seen; /* ... and old != 0 */
	size_t stale;        /* old != now: the cell's stamp must be updated */
	stamp_t seen_min, seen_max; /* bounds of old over first_seen cells */
	stamp_t induced_g_max; /* largest G part (local bits clear) of an
				  inducing write stamp, 0 if none */
};

/* Count the cases of a read of the @n cells whose thread stamps are @ts
 * and write stamps @wts (NULL: never written).  @g_mask clears the local
 * part of a stamp. */
void cells_tally_read(const stamp_t *ts, const stamp_t *wts, size_t n,
		      stamp_t top, stamp_t now, stamp_t g_mask,
		      struct read_tally *tally);

/* Set @n private cells to @v. */
void cells_fill(stamp_t *cells, size_t n, stamp_t v);

/* Set @n cells of the shared write-stamp table to @v. */
void cells_fill_shared(stamp_t *cells, size_t n, stamp_t v);

#endif
