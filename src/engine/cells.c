/*
 * cells.c - bulk loops over runs of shadow cells (see cells.h).
 *
 * The loops are branch-free so that the compiler vectorises them; this
 * file is built with -O3, and each loop is compiled twice, plain and for
 * AVX2, the AVX2 build being used where the processor has it.  The choice
 * is made at the first call, from what the C library found at start
 * (<sys/platform/x86.h>), not with GCC's target_clones: those bring in
 * libgcc's CPU model constructor, which runs a dozen CPUID instructions
 * in every process (each a trap to the hypervisor in a virtual machine,
 * 5 us apiece on the one of docs/performance.md).
 */
#include "engine/cells.h"

#if defined(__x86_64__) && !defined(CELLS_ATOMIC) && !defined(__clang__) && \
	__has_include(<sys/platform/x86.h>)
#define CELLS_AVX2 1
#include <sys/platform/x86.h>
#endif

/* The loops' bodies are inlined into a plain and an AVX2 function. */
#define CELLS_BODY static inline __attribute__((always_inline))

/*
 * Written for the vectoriser: every case is a 0/1 value of the stamp's own
 * width, counters are of that width too (a run is at most one chunk, 65536
 * cells), and "minimum over the cells where c holds" is spelled with masks,
 * since GCC does not vectorise conditional reductions.
 */
CELLS_BODY void tally_unwritten(const stamp_t *ts, size_t n, stamp_t top,
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

CELLS_BODY void tally_written(const stamp_t *ts, const stamp_t *wts, size_t n,
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

CELLS_BODY void tally_read(const stamp_t *ts, const stamp_t *wts, size_t n,
			   stamp_t top, stamp_t now, stamp_t g_mask,
			   struct read_tally *tally)
{
	if (wts)
		tally_written(ts, wts, n, top, now, g_mask, tally);
	else
		tally_unwritten(ts, n, top, now, tally);
}

CELLS_BODY void fill(stamp_t *cells, size_t n, stamp_t v)
{
	for (size_t i = 0; i < n; i++)
		cells[i] = v;
}

CELLS_BODY void fill_shared(stamp_t *cells, size_t n, stamp_t v)
{
	for (size_t i = 0; i < n; i++)
		SHARED_STORE(&cells[i], v);
}

/* One build of the loops. */
struct cells_loops {
	void (*tally_read)(const stamp_t *, const stamp_t *, size_t, stamp_t,
			   stamp_t, stamp_t, struct read_tally *);
	void (*fill)(stamp_t *, size_t, stamp_t);
	void (*fill_shared)(stamp_t *, size_t, stamp_t);
};

#define CELLS_LOOPS(suffix, attributes)                                    \
	attributes static void tally_read_##suffix(                        \
		const stamp_t *ts, const stamp_t *wts, size_t n, stamp_t top, \
		stamp_t now, stamp_t g_mask, struct read_tally *tally)     \
	{                                                                  \
		tally_read(ts, wts, n, top, now, g_mask, tally);           \
	}                                                                  \
	attributes static void fill_##suffix(stamp_t *cells, size_t n,     \
					     stamp_t v)                    \
	{                                                                  \
		fill(cells, n, v);                                         \
	}                                                                  \
	attributes static void fill_shared_##suffix(stamp_t *cells,        \
						    size_t n, stamp_t v)   \
	{                                                                  \
		fill_shared(cells, n, v);                                  \
	}                                                                  \
	static const struct cells_loops loops_##suffix = {                 \
		tally_read_##suffix, fill_##suffix, fill_shared_##suffix   \
	};

CELLS_LOOPS(plain, )

#ifdef CELLS_AVX2
CELLS_LOOPS(avx2, __attribute__((target("avx2"))))

static const struct cells_loops *chosen;

static const struct cells_loops *loops(void)
{
	const struct cells_loops *l =
		__atomic_load_n(&chosen, __ATOMIC_RELAXED);

	if (__builtin_expect(l == NULL, 0)) {
		l = CPU_FEATURE_ACTIVE(AVX2) ? &loops_avx2 : &loops_plain;
		__atomic_store_n(&chosen, l, __ATOMIC_RELAXED);
	}
	return l;
}
#else
static inline const struct cells_loops *loops(void)
{
	return &loops_plain;
}
#endif

void cells_tally_read(const stamp_t *ts, const stamp_t *wts, size_t n,
		      stamp_t top, stamp_t now, stamp_t g_mask,
		      struct read_tally *tally)
{
	loops()->tally_read(ts, wts, n, top, now, g_mask, tally);
}

void cells_fill(stamp_t *cells, size_t n, stamp_t v)
{
	loops()->fill(cells, n, v);
}

void cells_fill_shared(stamp_t *cells, size_t n, stamp_t v)
{
	loops()->fill_shared(cells, n, v);
}
