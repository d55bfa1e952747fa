/*
 * call.h - what every entry into the library from the program does: the
 * re-entrancy guard around the thread's state, and keeping the call's own
 * time out of the costs (see cost.h).  Shared by the API and the hooks.
 */
#ifndef TRMS_CALL_H
#define TRMS_CALL_H

#include <stdbool.h>

#include "runtime/thread.h"

/* call_enter when the thread's state is not simply there. */
struct trms_thread *call_enter_slow(int *rc);

/* Begin an API call: one thread-local load in the common case.
 * @return the calling thread's state, marked busy, or NULL with *rc the
 * value the call must return (0 when the library is inert or the thread
 * is past its exit, -EBUSY when re-entered, -ENOMEM). */
static inline struct trms_thread *call_enter(int *rc)
{
	struct trms_thread *t = thread_current;

	if (__builtin_expect(t != NULL && !t->busy, 1)) {
		t->busy = true;
		return t;
	}
	return call_enter_slow(rc);
}

static inline void call_leave(struct trms_thread *t)
{
	t->busy = false;
}

static inline bool call_timed(void)
{
	return config.cost == COST_NS;
}

/*
 * Keeping an API call's own time out of the costs (see cost.h).  A call is
 * either measured (clock at entry and exit) or charged the running
 * estimate for its kind; either way, the slow paths it took are excluded
 * exactly, and never taught to the estimate.
 */
struct meter {
	bool measure, exact;
	uint64_t entry, slow_start;
};

/* The slow time a call of kind @op can take: an access only the engine's
 * (shadow memory), a begin or end also the name registry's and the tuple
 * table's. */
static inline uint64_t meter_slow_ticks(const struct trms_thread *t,
					enum cost_op op)
{
	return op == COST_OP_ACCESS ? t->engine.slow_ticks
				    : thread_slow_ticks(t);
}

/* @exact: always measure, and do not learn from it (large accesses);
 * else measure one call in @every and learn from it. */
static inline void meter_start_every(struct trms_thread *t, struct meter *m,
				     enum cost_op op, bool exact,
				     unsigned every)
{
	m->exact = exact;
	m->measure = exact || cost_sample_every(&t->cost, op, every);
	m->entry = m->measure ? clock_ticks_after() : 0;
	m->slow_start = meter_slow_ticks(t, op);
}

static inline void meter_start(struct trms_thread *t, struct meter *m,
			       enum cost_op op, bool exact)
{
	meter_start_every(t, m, op, exact, COST_SAMPLE_EVERY);
}

/* The same, for a call that has read the clock on entry anyway. */
static inline void meter_start_at(struct trms_thread *t, struct meter *m,
				  enum cost_op op, uint64_t entry)
{
	m->exact = false;
	m->measure = cost_sample(&t->cost, op);
	m->entry = entry;
	m->slow_start = meter_slow_ticks(t, op);
}

/* Stop metering, @now being the clock read at the end of the call if it
 * was measured. */
static inline void meter_stop_at(struct trms_thread *t, struct meter *m,
				 enum cost_op op, uint64_t now)
{
	uint64_t slow = meter_slow_ticks(t, op) - m->slow_start;

	if (__builtin_expect(slow != 0, 0))
		cost_exclude(&t->cost, slow);
	/* Entering and leaving the library, outside any reading. */
	if (op == COST_OP_ACCESS)
		cost_exclude_estimated(&t->cost, t->cost.access_floor);
	if (!m->measure) {
		cost_estimated(&t->cost, op);
		return;
	}
	/* Never below zero, whatever the clock did (a virtual machine's
	 * TSC moved back across CPUs). */
	int64_t took = (int64_t)(now - m->entry - slow);
	if (took < 0)
		took = 0;
	if (m->exact)
		cost_exclude(&t->cost, (uint64_t)took);
	else
		cost_measured(&t->cost, op, (uint64_t)took);
}

static inline void meter_stop(struct trms_thread *t, struct meter *m,
			      enum cost_op op)
{
	meter_stop_at(t, m, op, m->measure ? clock_ticks_after() : 0);
}

/*
 * Around an access of @size bytes (an annotated read or write, or the
 * bytes a hooked call moved): one event for costs in events; with costs
 * in nanoseconds its time kept out of the costs, measured exactly when
 * large, else charged at the running estimate (two clock reads would
 * cost more than a small access itself).  When activations are skipped
 * (TRMS_ACTIVATION_SAMPLE, TRMS_BUDGET), a measured one times its first
 * accesses exactly and one in 8 of the rest (selection_cold_access says
 * why).  An access outside measured activations (a write in a skipped
 * one) is charged the estimate, as nothing measured is pending to be
 * corrected by it.  @timed: call_timed(), read once for both.
 */
static inline __attribute__((always_inline)) void
call_access_start(struct trms_thread *t, struct meter *m, size_t size,
		  bool timed)
{
	engine_count_event(&t->engine);
	if (!timed)
		return;
	bool large = (size >> runtime.engine.cell_shift) >= COST_MEASURE_CELLS;
	if (__builtin_expect(!selection_measuring_among_skipped(&t->sel), 1))
		meter_start(t, m, COST_OP_ACCESS, large);
	else
		meter_start_every(t, m, COST_OP_ACCESS,
				  large || selection_cold_access(&t->sel),
				  SELECTION_ACCESS_SAMPLE_EVERY);
}

static inline __attribute__((always_inline)) void
call_access_stop(struct trms_thread *t, struct meter *m, bool timed)
{
	if (timed)
		meter_stop(t, m, COST_OP_ACCESS);
}

/* An access by @t (busy) failed with @rc: one the shadow had no room for
 * leaves the activations pending inexact, so none of them is recorded. */
static inline void call_access_failed(struct trms_thread *t, int rc)
{
	if (rc == -ENOMEM)
		thread_drop_pending(t);
}

/* One access of @size bytes at @addr by @t (busy), the engine's @op,
 * metered as above; not made at all where no measured activation can
 * depend on it (selection.h), and watched where one may (gate.h).
 * @return @op's. */
static inline __attribute__((always_inline)) int
call_access_as(struct trms_thread *t, uintptr_t addr, size_t size,
	       int (*op)(struct engine_thread *, uintptr_t, size_t),
	       const bool is_timed)
{
	if (__builtin_expect(selection.on, 0)) {
		if (op == engine_read
			    ? selection_skips_reads(&t->sel)
			    : selection_skips_write(&t->sel, addr, size))
			return 0;
		selection_watch(&t->sel, addr, size);
	}
	int rc;
	if (!is_timed) {
		engine_count_event(&t->engine);
		rc = op(&t->engine, addr, size);
	} else {
		struct meter m;
		call_access_start(t, &m, size, true);
		rc = op(&t->engine, addr, size);
		call_access_stop(t, &m, true);
	}
	if (__builtin_expect(rc != 0, 0))
		call_access_failed(t, rc);
	return rc;
}

static inline __attribute__((always_inline)) int
call_access(struct trms_thread *t, uintptr_t addr, size_t size,
	    int (*op)(struct engine_thread *, uintptr_t, size_t))
{
	return call_timed() ? call_access_as(t, addr, size, op, true)
			    : call_access_as(t, addr, size, op, false);
}

#endif
