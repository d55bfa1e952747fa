/*
 * cost.h - keeping the profiler's own time out of the regions' costs.
 *
 * Each thread keeps `excluded`, the clock time it has spent inside the
 * library so far, and measures every cost on a virtual clock that stops
 * while the library runs: virtual = clock - excluded.  An activation's cost
 * is the difference of two virtual readings, so the time its descendants'
 * annotation calls took is not in it.
 *
 * How an annotation call's own time is known:
 *  - a range access of COST_MEASURE_CELLS cells or more, and any slow path
 *    (first sight of a region name, ...), reads the clock on entry and on
 *    exit: exact, up to the few instructions before the first read and
 *    after the last;
 *  - region begin and end read the clock once each anyway (the cost needs
 *    it), at their very end and very start; the rest of their work, and
 *    small accesses, are charged at a per-thread running estimate,
 *    refreshed by measuring one call in COST_SAMPLE_EVERY of each kind;
 *  - what lies between those two clock reads in an empty region (the
 *    clock's own latency, returning from begin, entering end) is the
 *    "floor", measured once at start on a hidden region: every end
 *    excludes it, and a cost never goes below zero.
 * See docs/cost.md.
 */
#ifndef TRMS_COST_H
#define TRMS_COST_H

#include <stdbool.h>
#include <stdint.h>

enum cost_op { COST_OP_BEGIN, COST_OP_END, COST_OP_ACCESS, COST_OPS };

#define COST_SAMPLE_EVERY 64
#define COST_MEASURE_CELLS 64
#define COST_CALIBRATION_CALLS 101

/* Every measured duration, while calibrating at start. */
struct cost_calibration {
	uint64_t samples[COST_OPS][COST_CALIBRATION_CALLS];
	unsigned n[COST_OPS];
};

struct cost_meter {
	uint64_t excluded;
	uint64_t floor; /* ticks between begin's clock read and end's, empty */
	uint64_t estimate[COST_OPS];
	uint32_t calls[COST_OPS];
	struct cost_calibration *calibrating; /* measure every call */
};

/* Should this call of kind @op be measured exactly? */
static inline bool cost_sample(struct cost_meter *m, enum cost_op op)
{
	return m->calls[op]++ % COST_SAMPLE_EVERY == 0 || m->calibrating;
}

/* A measured call of kind @op took @ticks: exclude it and learn from it.
 * One preempted or page-faulting call must not wreck the estimate, so a
 * sample counts for at most four times the current estimate. */
static inline void cost_measured(struct cost_meter *m, enum cost_op op,
				 uint64_t ticks)
{
	m->excluded += ticks;
	if (m->calibrating) {
		struct cost_calibration *c = m->calibrating;
		if (c->n[op] < COST_CALIBRATION_CALLS)
			c->samples[op][c->n[op]++] = ticks;
		return;
	}
	uint64_t est = m->estimate[op];
	if (est && ticks > 4 * est)
		ticks = 4 * est;
	m->estimate[op] = est + ((int64_t)ticks - (int64_t)est) / 16;
}

/* Exclude @ticks measured outside the sampling scheme (a slow path, a
 * large access). */
static inline void cost_exclude(struct cost_meter *m, uint64_t ticks)
{
	m->excluded += ticks;
}

/* An unmeasured call of kind @op: exclude the running estimate. */
static inline void cost_estimated(struct cost_meter *m, enum cost_op op)
{
	m->excluded += m->estimate[op];
}

#endif
