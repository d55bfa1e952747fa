/*
 * cells.c - bulk loops over runs of shadow cells (see cells.h).
 *
 * The loops are branch-free so that the compiler vectorises them; this
 * file is built with -O3, and with an AVX2 clone picked at load time where
 * the processor has it.
 */
#include "cells.h"

#if defined(__x86_64__) && !defined(CELLS_ATOMIC) && !defined(__clang__)
#define CELLS_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define CELLS_CLONES
#endif

/*
 * Written for the vectoriser: every case is a 0/1 value of the stamp's own
 * width, counters are of that width too (a run is at most one chunk, 65536
 * cells), and "minimum over the cells where c holds" is spelled with masks,
 * since GCC does not vectorise conditional reductions.
 */
CELLS_CLONES
static void tally_unwritten(const stamp_t *ts, size_t n, stamp_t top,
			    stamp_t now, struct read_tally *t)
{
	stamp_t first = 0, first_seen = 0, stale = 0;
	stamp_t lo = (stamp_t)-1, hi = 0;

	for (size_t i = 0; i < n; i++) {
		stamp_t old = ts[i];
		stamp_t is_first = old < top;
		stamp_t is_first_seen = is_first & (old != 0);

		first += is_first;
		first_seen += is_first_seen;
		stale += old != now;
		stamp_t as_lo = old | (is_first_seen - 1); /* old or ~0 */
		stamp_t as_hi = old & -is_first_seen;      /* old or 0 */
		lo = as_lo < lo ? as_lo : lo;
		hi = as_hi > hi ? as_hi : hi;
	}
	t->first = first;
	t->first_seen = first_seen;
	t->induced = 0;
	t->induced_kernel = 0;
	t->first_own = first;
	t->first_own_seen = first_seen;
	t->stale = stale;
	t->seen_min = lo;
	t->seen_max = hi;
	t->induced_g_max = 0;
}

CELLS_CLONES
static void tally_written(const stamp_t *ts, const stamp_t *wts, size_t n,
			  stamp_t top, stamp_t now, stamp_t g_mask,
			  struct read_tally *t)
{
	stamp_t first = 0, first_seen = 0, induced = 0, induced_kernel = 0;
	stamp_t first_own = 0, first_own_seen = 0, stale = 0;
	stamp_t lo = (stamp_t)-1, hi = 0, g_max = 0;

	for (size_t i = 0; i < n; i++) {
		stamp_t old = ts[i];
		stamp_t w = SHARED_LOAD(&wts[i]);
		stamp_t w_g = w & g_mask;
		stamp_t is_induced = (old & g_mask) < w_g;
		stamp_t is_first = old < top;
		stamp_t is_seen = old != 0;
		stamp_t is_first_seen = is_first & is_seen;
		stamp_t is_first_own = is_first & (is_induced ^ 1);

		first += is_first;
		first_seen += is_first_seen;
		induced += is_induced;
		induced_kernel += is_induced & w & STAMP_KERNEL;
		first_own += is_first_own;
		first_own_seen += is_first_own & is_seen;
		stale += old != now;
		stamp_t as_lo = old | (is_first_seen - 1);
		stamp_t as_hi = old & -is_first_seen;
		stamp_t as_g = w_g & -is_induced;
		lo = as_lo < lo ? as_lo : lo;
		hi = as_hi > hi ? as_hi : hi;
		g_max = as_g > g_max ? as_g : g_max;
	}
	t->first = first;
	t->first_seen = first_seen;
	t->induced = induced;
	t->induced_kernel = induced_kernel;
	t->first_own = first_own;
	t->first_own_seen = first_own_seen;
	t->stale = stale;
	t->seen_min = lo;
	t->seen_max = hi;
	t->induced_g_max = g_max;
}

void cells_tally_read(const stamp_t *ts, const stamp_t *wts, size_t n,
		      stamp_t top, stamp_t now, stamp_t g_mask,
		      struct read_tally *tally)
{
	if (wts)
		tally_written(ts, wts, n, top, now, g_mask, tally);
	else
		tally_unwritten(ts, n, top, now, tally);
}

CELLS_CLONES
void cells_fill(stamp_t *cells, size_t n, stamp_t v)
{
	for (size_t i = 0; i < n; i++)
		cells[i] = v;
}

CELLS_CLONES
void cells_fill_shared(stamp_t *cells, size_t n, stamp_t v)
{
	for (size_t i = 0; i < n; i++)
		SHARED_STORE(&cells[i], v);
}
