/*
 * activation.h - opening and closing an activation for a call into the
 * library, with its cost clock kept clear of the library's own time:
 * shared by the API's regions (api.c) and the functions of code built
 * with `trms cc` (function_hooks.c).
 */
#ifndef TRMS_ACTIVATION_H
#define TRMS_ACTIVATION_H

#include "call.h"
#include "runtime/sweep.h"

/* Say why the engine refused an activation or an access (@what: the
 * call). */
void activation_engine_error(const char *what, int rc);

/* Before the thread's first activation with costs in nanoseconds: time
 * the library's own paths on this thread (calibrate.h).  @t is busy. */
void activation_calibrate(struct trms_thread *t);

/* Around the registration of a region this thread meets for the first
 * time (a name, a function): the time it takes is kept out of costs, and
 * once a region exists the I/O hooks record (they must before any region
 * begins).  @start: what registration_start returned. */
static inline uint64_t registration_start(void)
{
	/* The cost clock chosen before the first tick of a region that
	 * comes unannounced (an API found with dlsym); at once if it was
	 * chosen. */
	clock_init();
	return call_timed() ? clock_ticks() : 0;
}

static inline void registration_end(struct trms_thread *t, uint64_t start,
				    bool registered)
{
	if (registered && !atomic_load_explicit(&runtime.record_io,
						memory_order_relaxed))
		runtime_expect_regions();
	if (call_timed())
		t->lookup_slow_ticks += clock_ticks() - start;
}

/* The region id for @key, and the key the frame keeps (NULL if the
 * pointer alone does not identify the region). */
typedef int activation_lookup(struct trms_thread *t, const void *key,
			      uint32_t *id, const void **frame_key);

/* The innermost activation's cost clock starts at @now (read after all
 * of our own work), with the meter's readings that its close compares
 * with (thread_record). */
static inline void activation_start_clock(struct trms_thread *t,
					  uint64_t now)
{
	engine_set_cost_start(&t->engine, now - t->cost.excluded,
			      t->cost.excluded, t->cost.measured);
}

/* With some activations skipped by the program's own code (gate.h): the
 * ones on the gate's stack so far lie below the frame just pushed, and
 * above it again once it is popped (@f, its frame). */
static inline void activation_gate_pushed(struct trms_thread *t)
{
	struct trms_thread_gate_v1_ *g = t->sel.gate;

	if (g && gate_mode.begins) {
		t->engine.stack[t->engine.depth].gate_base = (uint32_t)g->base;
		g->base = g->top;
	}
}

static inline void activation_gate_popped(struct trms_thread *t,
					  const struct frame *f)
{
	struct trms_thread_gate_v1_ *g = t->sel.gate;

	if (g && gate_mode.begins)
		g->base = f->gate_base;
}

/* TRMS_BUDGET asked to give up the measured activations pending
 * (selection.h's give_up): they are not recorded (tag 0, and no longer
 * counted as measured), and the thread has no measured activation
 * pending any more.  Every activation recorded was still measured whole
 * (docs/production.md). */
static inline void activation_give_up_if_asked(struct trms_thread *t)
{
	struct selection_thread *s = &t->sel;

	if (__builtin_expect(!s->give_up, 1))
		return;
	s->give_up = false;
	if (!s->measured_from)
		return;
	for (size_t i = s->measured_from; i <= t->engine.depth; i++) {
		struct frame *f = &t->engine.stack[i];
		if (f->tag && f->region < s->capacity &&
		    s->regions[f->region].measured)
			s->regions[f->region].measured--;
		f->tag = 0;
	}
	s->measured_from = 0;
	selection_measuring(s, false);
	s->given_up++;
}

/* The frame of a measured activation could not be pushed: if it was the
 * outermost measured one, nothing is measured after all. */
static inline void activation_unmeasure_failed(struct trms_thread *t)
{
	if (t->sel.measured_from > t->engine.depth) {
		t->sel.measured_from = 0;
		selection_measuring(&t->sel, false);
	}
}

/* Push the frame of an activation of region @id, measured or not as the
 * selection decides (selection.h).  @return 0 or the engine's error. */
static inline __attribute__((always_inline)) int
activation_push(struct trms_thread *t, uint32_t id, const void *key,
		uintptr_t cfa)
{
	uint32_t tag = runtime_tag();

	if (selection.on) {
		activation_give_up_if_asked(t);
		if (selection_begin(&t->sel, id, t->engine.depth,
				    t->cost.excluded) != SELECTION_MEASURED)
			tag = 0; /* never recorded */
	}
	int rc = engine_call(&t->engine, id, tag, key, cfa, t->engine.events);
	if (__builtin_expect(rc != 0, 0))
		activation_unmeasure_failed(t);
	else if (selection.on)
		activation_gate_pushed(t);
	return rc;
}

/*
 * Open an activation of the region @lookup finds for @key, specialised
 * for the cost unit (@is_timed); @what names the call for messages.
 * @cfa: the caller's stack pointer at its call.  @return 0 or the
 * engine's error.
 */
static inline __attribute__((always_inline)) int
activation_open(struct trms_thread *t, const void *key, uintptr_t cfa,
		activation_lookup *lookup, const char *what,
		const bool is_timed)
{
	struct meter m = { 0 };
	const void *frame_key;
	uint32_t id;
	int rc;

	if (is_timed)
		meter_start(t, &m, COST_OP_BEGIN, false);
	rc = lookup(t, key, &id, &frame_key);
	if (__builtin_expect(!rc, 1))
		rc = activation_push(t, id, frame_key, cfa);
	if (__builtin_expect(rc != 0, 0))
		activation_engine_error(what, rc);
	if (!is_timed)
		return rc;
	/* The activation's clock starts now, after all of our own work. */
	uint64_t now = clock_ticks();
	meter_stop_at(t, &m, COST_OP_BEGIN, now);
	if (!rc)
		activation_start_clock(t, now);
	return rc;
}

/* The fast path of an entry, once its region @id is known: push the frame
 * if there is room, the thread busy meanwhile; with costs in nanoseconds
 * the clock starts after our work.  A skipped activation (selection.h)
 * reads no clock.  @return 0, an engine's error (said), or -EAGAIN
 * (nothing done) if the slow path must open it. */
static inline __attribute__((always_inline)) int
activation_open_fast_as(struct trms_thread *t, uint32_t id, const void *key,
			uintptr_t cfa, const bool is_timed,
			const bool may_select)
{
	t->busy = true;
	if (may_select && selection.on) {
		activation_give_up_if_asked(t);
		enum selection_kind kind = selection_begin(
			&t->sel, id, t->engine.depth, t->cost.excluded);
		if (kind == SELECTION_SKIPPED &&
		    engine_try_push_uncounted(&t->engine, id, key, cfa)) {
			activation_gate_pushed(t);
			t->busy = false;
			return 0;
		}
		uint32_t tag = kind == SELECTION_MEASURED ? runtime_tag() : 0;
		int rc = engine_call(&t->engine, id, tag, key, cfa,
				     t->engine.events);
		if (__builtin_expect(rc != 0, 0)) {
			activation_unmeasure_failed(t);
			t->busy = false;
			activation_engine_error("region begin", rc);
			return rc;
		}
		activation_gate_pushed(t);
		if (is_timed && kind != SELECTION_SKIPPED) {
			uint64_t now = clock_ticks();
			cost_estimated(&t->cost, COST_OP_BEGIN);
			activation_start_clock(t, now);
		}
		t->busy = false;
		return 0;
	}
	bool opened = engine_try_call(&t->engine, id, runtime_tag(), key, cfa,
				      t->engine.events);
	if (opened && is_timed) {
		uint64_t now = clock_ticks();
		cost_estimated(&t->cost, COST_OP_BEGIN);
		activation_start_clock(t, now);
	}
	t->busy = false;
	return opened ? 0 : -EAGAIN;
}

/* The same where some activations may not be measured (selection.h);
 * the callers that know none is not say so (may_select false), and save
 * the look. */
static inline __attribute__((always_inline)) int
activation_open_fast(struct trms_thread *t, uint32_t id, const void *key,
		     uintptr_t cfa, const bool is_timed)
{
	return activation_open_fast_as(t, id, key, cfa, is_timed, true);
}

/* With only skipped activations pending (selection.h), the end of the
 * innermost one, whose frame is @top: popped, no clock read, nothing
 * recorded.  @return false (nothing done) if it is not that case. */
static inline __attribute__((always_inline)) bool
activation_close_skipped(struct trms_thread *t, bool matches)
{
	if (!selection.on || t->sel.measured_from || !t->engine.depth ||
	    !matches)
		return false;
	t->busy = true;
	selection_skipped_end(&t->sel);
	activation_gate_popped(t, &t->engine.stack[t->engine.depth]);
	engine_drop(&t->engine);
	t->busy = false;
	return true;
}

/* Close the innermost activation and record it, its cost read at @now
 * (the clock read on entry) if timed; @may_select as for
 * activation_open_fast_as. */
static inline __attribute__((always_inline)) void
activation_close_as(struct trms_thread *t, const bool is_timed, uint64_t now,
		    const bool may_select)
{
	uint64_t reading = t->engine.events;

	if (is_timed) {
		/* The floor is ours too, known by calibration only. */
		cost_exclude_estimated(&t->cost, t->cost.floor);
		reading = now - t->cost.excluded;
	}
	const struct frame *f = engine_pop(&t->engine);
	if (may_select && selection.on) {
		activation_gate_popped(t, f);
		selection_end(&t->sel, f->region, t->engine.depth,
			      t->cost.excluded);
	}
	/* Events never run backwards; the clock less what is excluded can,
	 * by an estimate's error, and a cost is never below zero. */
	uint64_t cost = reading - f->cost_start;
	if (is_timed && reading < f->cost_start)
		cost = 0;
	thread_record(t, f, cost, is_timed);
}

static inline __attribute__((always_inline)) void
activation_close(struct trms_thread *t, const bool is_timed, uint64_t now)
{
	activation_close_as(t, is_timed, now, true);
}

/* The fast path of an exit whose frame is on top: close it, the thread
 * busy meanwhile, the end charged its estimate with costs in ns. */
static inline __attribute__((always_inline)) void
activation_close_fast_as(struct trms_thread *t, const bool is_timed,
			 uint64_t now, const bool may_select)
{
	t->busy = true;
	activation_close_as(t, is_timed, now, may_select);
	if (is_timed)
		cost_estimated(&t->cost, COST_OP_END);
	/* A shadow grown enough is swept (sweep.h) at an end, and when data
	 * moves through a hooked call: both come often enough, and neither
	 * as often as an annotated access. */
	sweep_if_due(t);
	t->busy = false;
}

static inline __attribute__((always_inline)) void
activation_close_fast(struct trms_thread *t, const bool is_timed,
		      uint64_t now)
{
	activation_close_fast_as(t, is_timed, now, true);
}

#endif
