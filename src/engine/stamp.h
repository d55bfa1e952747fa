/*
 * stamp.h - timestamps that order events without a shared counter bumped
 * on every event (DESIGN §4).
 *
 * A stamp packs two numbers: the global write clock G in the high bits and
 * a thread-local counter in the low `local_bits`.  G advances (atomically,
 * once per write call or kernel write) only when memory is written; calls
 * advance the local part of the calling thread's stamp.  So:
 *  - within a thread stamps only grow, and a call gets a fresh one;
 *  - a write's G is above the G of every stamp any thread recorded before;
 *  - "was this cell written since I last touched it" compares G parts only.
 *
 * The write-stamp table stores G with a zero local part; its lowest bit
 * marks writes made by the kernel (data that arrived through read(),
 * recv(), ...).
 *
 * The storage width is fixed at build time (meson option stamp_bits); the
 * width actually used can be made smaller at run time so that tests reach
 * stamp exhaustion, and therefore renumbering, every few hundred events.
 */
#ifndef TRMS_STAMP_H
#define TRMS_STAMP_H

#include <stdint.h>

#ifndef TRMS_STAMP_BITS
#define TRMS_STAMP_BITS 32
#endif

#if TRMS_STAMP_BITS == 64
typedef uint64_t stamp_t;
#elif TRMS_STAMP_BITS == 32
typedef uint32_t stamp_t;
#else
#error "TRMS_STAMP_BITS must be 32 or 64"
#endif

#define STAMP_KERNEL ((stamp_t)1)

/* How a stamp of `bits` bits is split; see stamp_layout_init. */
struct stamp_layout {
	unsigned bits;
	unsigned local_bits;
	stamp_t local_mask;
	uint64_t g_limit; /* largest usable value of G */
};

/* Smallest width the engine accepts; below it renumbering cannot free
 * enough room for even a few pending activations. */
#define STAMP_MIN_BITS 8

static inline void stamp_layout_init(struct stamp_layout *l, unsigned bits)
{
	l->bits = bits;
	/* A quarter of the bits for calls between two writes: calls that
	 * exhaust it take a fresh G, which is rare enough not to matter. */
	l->local_bits = bits / 4 < 2 ? 2 : bits / 4;
	l->local_mask = ((stamp_t)1 << l->local_bits) - 1;
	l->g_limit = (bits - l->local_bits >= 64)
			     ? UINT64_MAX
			     : ((uint64_t)1 << (bits - l->local_bits)) - 1;
}

static inline stamp_t stamp_from_g(const struct stamp_layout *l, uint64_t g)
{
	return (stamp_t)g << l->local_bits;
}

#endif
