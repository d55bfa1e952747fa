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
 *  - what no reading inside a call can see is found once per process by
 *    timing a block of calls from outside: the "floor" of an empty region
 *    (from begin's clock read to end's: the clock's latency, returning
 *    from begin, entering end), excluded by every end, and the
 *    "access floor" (entering and leaving the library around a small
 *    access), excluded by every access.  A cost never goes below zero.
 *
 * Of what it excludes, the meter also keeps apart the part measured: the
 * rest, charged by estimate (running estimates and floors), is what the
 * correction of a cost can be off by, and the profile says how much of it
 * each region's costs had taken out (docs/cost.md, "When the library
 * dominates").  Only measured calls and slow paths count it: the calls
 * charged an estimate, the most frequent, do no more than before.
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

/* Every measured duration, while calibrating (at the first region). */
struct cost_calibration {
	uint64_t samples[COST_OPS][COST_CALIBRATION_CALLS];
	unsigned n[COST_OPS];
};

struct cost_meter {
	uint64_t excluded;
	/* Of excluded, the ticks measured (timed calls, slow paths, large
	 * accesses); the rest was charged by estimate or floor. */
	uint64_t measured;
	uint64_t floor; /* ticks between begin's clock read and end's, empty */
	uint64_t access_floor; /* ticks of an access outside its readings */
	uint64_t estimate[COST_OPS];
	uint64_t learned[COST_OPS]; /* the estimates, in 1/16 ticks */
	uint64_t clock_read; /* ticks one clock read takes */
	uint32_t calls[COST_OPS];
	struct cost_calibration *calibrating; /* measure every call */
	/* The process's calibrated estimates and floors are in: set at the
	 * thread's first region (see api.c). */
	bool calibrated;
};

/* Should this call of kind @op be measured exactly, one in @every? */
static inline bool cost_sample_every(struct cost_meter *m, enum cost_op op,
				     unsigned every)
{
	return m->calls[op]++ % every == 0 || m->calibrating;
}

static inline bool cost_sample(struct cost_meter *m, enum cost_op op)
{
	return cost_sample_every(m, op, COST_SAMPLE_EVERY);
}

/*
 * A measured call reads the clock where an unmeasured one does not, and
 * the estimate is for unmeasured calls: take the extra read out of what it
 * learns.  A small access reads the clock on entry and exit only when
 * measured, so one whole read lies between its two readings; a begin's
 * extra read is on entry and an end's on exit, and their readings cut the
 * reads they share with the activation's clock, so together a begin/end
 * pair carries one extra read, counted half to each.  (On virtual machines
 * a clock read can take 10 ns, as long as the rest of the pair.)
 */
static inline uint64_t cost_learnable(const struct cost_meter *m,
				      enum cost_op op, uint64_t ticks)
{
	uint64_t extra = op == COST_OP_ACCESS ? m->clock_read
					      : m->clock_read / 2;

	return ticks > extra ? ticks - extra : 0;
}

/* The fast paths charge the estimate and never measure: if the next call
 * of kind @op is not to be measured, count it and return true; otherwise
 * return false and leave it to cost_sample. */
static inline bool cost_take_unmeasured(struct cost_meter *m,
					enum cost_op op)
{
	if (m->calls[op] % COST_SAMPLE_EVERY == 0 || m->calibrating)
		return false;
	m->calls[op]++;
	return true;
}

/* Start the estimate for calls of kind @op at @ticks. */
static inline void cost_set_estimate(struct cost_meter *m, enum cost_op op,
				     uint64_t ticks)
{
	m->estimate[op] = ticks;
	m->learned[op] = ticks * 16;
}

/*
 * A measured call of kind @op took @ticks: exclude it and learn from it.
 * The estimate is a running average over about the last 16 samples, kept
 * in sixteenths of a tick so that differences smaller than 16 ticks are
 * not lost to integer division.  One preempted or page-faulting call must
 * not wreck it, so a sample counts for at most four times the estimate (or
 * four clock reads, so that an estimate near zero can still grow).
 */
static inline void cost_measured(struct cost_meter *m, enum cost_op op,
				 uint64_t ticks)
{
	m->excluded += ticks;
	m->measured += ticks;
	ticks = cost_learnable(m, op, ticks);
	if (m->calibrating) {
		struct cost_calibration *c = m->calibrating;
		if (c->n[op] < COST_CALIBRATION_CALLS)
			c->samples[op][c->n[op]++] = ticks;
		return;
	}
	uint64_t est = m->estimate[op];
	uint64_t cap = 4 * (est > m->clock_read ? est : m->clock_read);
	if (cap && ticks > cap)
		ticks = cap;
	m->learned[op] += ticks - m->learned[op] / 16;
	m->estimate[op] = (m->learned[op] + 8) / 16;
}

/* Exclude @ticks measured outside the sampling scheme (a slow path, a
 * large access). */
static inline void cost_exclude(struct cost_meter *m, uint64_t ticks)
{
	m->excluded += ticks;
	m->measured += ticks;
}

/* Exclude @ticks known only by estimate: a floor. */
static inline void cost_exclude_estimated(struct cost_meter *m,
					  uint64_t ticks)
{
	m->excluded += ticks;
}

/* An unmeasured call of kind @op: exclude the running estimate. */
static inline void cost_estimated(struct cost_meter *m, enum cost_op op)
{
	cost_exclude_estimated(m, m->estimate[op]);
}

#endif
