/*
 * thread.h - the library's state for each thread of the program: its
 * engine state (shadow stack, stamps), its tuples, its region-name cache,
 * its cost meter and its sampling state, with how it came to be.
 */
#ifndef TRMS_THREAD_H
#define TRMS_THREAD_H

#include <stdbool.h>
#include <stdint.h>

#include <urcu/list.h>

#include "base/clock.h"
#include "base/config.h"
#include "engine/cost.h"
#include "engine/engine.h"
#include "engine/function_cache.h"
#include "engine/tuples.h"
#include "engine/region.h"
#include "runtime/runtime.h"
#include "sampler/sampler.h"
#include "runtime/selection.h"
#include "base/signals.h"

#define THREAD_NAME_MAX 63
#define THREAD_CONTEXT_MAX 32

/* Where a thread came from: its number, and the creation context the
 * pthread_create hook noted (see pthread_hooks.c). */
struct thread_origin {
	uint32_t ordinal;
	bool has_creator;
	uint32_t creator;
	uint32_t context_depth;
	uint32_t context[THREAD_CONTEXT_MAX];
	/* The creator's call path, for the new thread's call tree. */
	unsigned path_len;
	struct cct_step path[SAMPLER_CONTEXT_MAX];
};

/* A thread's tables with TRMS_INTERVAL (see output/window_write.c): it
 * records into one of profile and spare while the window writer folds
 * the other, once written as a window, into past. */
struct thread_windows {
	struct tuple_table spare;
	struct tuple_table past; /* the windows written */
	/* The table the thread was switched away from, not folded into
	 * past yet (NULL: none): it may still be recording into it until
	 * ready. */
	struct tuple_table *cut;
	bool ready; /* the thread has surely left cut: it may be cleared */
	bool cut_written; /* cut is in a window written already */
	/* The tables the window being written takes from this thread. */
	const struct tuple_table *in_window[2];
	unsigned n_in_window;
	/* The thread's counters (enum window_counter) when the window
	 * before the ended one ended, and when the ended one did. */
	uint64_t base[5], at_cut[5];
	/* An ended thread the window being written says is folded, after
	 * it, into the thread of the ended ones (thread_fold_choose). */
	bool fold_after;
	/* The thread of the ended threads: how many the window being
	 * written folds into it. */
	uint64_t ended_in_window;
};

enum window_counter { WIN_IN_BYTES, WIN_IN_CALLS, WIN_OUT_BYTES,
		      WIN_OUT_CALLS, WIN_DROPPED };

/* Everything the library keeps for one thread of the program.  Fields
 * other than those under the runtime lock are touched only by the thread
 * itself. */
struct trms_thread {
	struct engine_thread engine;
	/* Where activations are recorded: &tuples, or with windows the
	 * table the window writer points it to. */
	struct tuple_table *_Atomic recording;
	struct tuple_table tuples;
	struct thread_windows *windows; /* TRMS_INTERVAL only */
	struct function_cache *functions; /* at the first function region */
	struct cost_meter cost;
	struct selection_thread sel; /* which activations are measured */
	/* Set while the thread runs library code: a call that arrives
	 * meanwhile (from a signal handler, or from a function the library
	 * itself calls) must not touch the thread's state. */
	bool busy;
	uint64_t lookup_slow_ticks; /* time spent registering region names */
	/* Activations not recorded: an access inside them found no memory
	 * for its shadow (thread_drop_pending). */
	uint64_t incomplete;
	uint32_t ordinal; /* 0 for the main thread, then creation order */
	char name[THREAD_NAME_MAX + 1]; /* under runtime.lock */
	/* Creation context: the creating thread and the regions it had open
	 * when it called pthread_create, outermost first.  Set before the
	 * thread runs, then read-only. */
	bool has_creator;
	uint32_t creator;
	uint32_t context_depth;
	uint32_t context[THREAD_CONTEXT_MAX];
	/* Data moved through the hooked calls: written by the owner with
	 * relaxed atomic stores, read by the profile writer. */
	uint64_t in_bytes, in_calls, out_bytes, out_calls;
	bool dead;        /* exited: only the profile remains */
	uint64_t ended_threads; /* the thread of the ended ones: how many */
	/* When the thread started and ended (monotonic ns; until 0 while it
	 * runs): its elapsed time, what a wall-clock sampler samples. */
	uint64_t alive_from_ns, alive_until_ns;
	struct cds_list_head link; /* in runtime.threads, by ordinal */
	/* What a thread's start writes lies above, in its first page;
	 * below, what it may never need. */
	struct sampler_thread sampler;
	struct name_cache names;
};

extern __thread struct trms_thread *thread_current
	__attribute__((tls_model("initial-exec")));

/* thread_self when the thread has no state yet. */
struct trms_thread *thread_attach(void);

/* In a child process after fork: keep only the calling thread, with an
 * empty profile. */
void thread_after_fork_child(void);

/* The next thread number, in creation order. */
uint32_t thread_reserve_ordinal(void);

/* Give a thread made by the pthread_create hook its state, before it runs
 * the program's code.  Failure leaves the thread unprofiled. */
void thread_attach_created(const struct thread_origin *origin);

/* The calling thread's state, created on first use; NULL if it cannot be
 * created or the thread is past its exit. */
static inline struct trms_thread *thread_self(void)
{
	struct trms_thread *t = thread_current;

	return __builtin_expect(t != NULL, 1) ? t : thread_attach();
}

/* The calling thread is the library's own (the window writer): the
 * hooks leave it alone, as a thread past its exit. */
void thread_disown_self(void);

/* True once the calling thread has gone through its exit. */
bool thread_is_gone(void);

/* The regions open in the thread @owner (a struct trms_thread), for the
 * sampler: async-signal-safe. */
unsigned thread_open_regions(void *owner, struct sampler_region *out,
			     unsigned max);

/* sampler_config.exclude_ticks: a sample handler's time on @owner's
 * thread, kept out of its costs (costs in ns only). */
bool thread_exclude_ticks(void *owner, uint64_t ticks);

/* The calling thread enters a seccomp sandbox: the library ends its
 * profiling as if it exited, and makes no system call in it again. */
void thread_enter_sandbox(void);
bool thread_is_sandboxed(void);

/* No thread but the caller is alive (as far as the library knows). */
bool thread_alone(void);

/* Create the pthread key whose destructor ends a thread's profiling. */
int thread_key_create(void);

/* Give @t the calibrated floor and estimates. */
void thread_cost_defaults(struct trms_thread *t);

/* thread_record when an observer is set (tests, calibration). */
void thread_record_observed(struct trms_thread *t, const struct frame *f,
			    uint64_t cost, uint64_t library,
			    uint64_t estimated);

/* A new (trms, rms) could not be stored. */
void thread_record_failed(void);

/* If set, called with every activation the profile records (tests use it
 * to check each activation; not exported). */
extern void (*runtime_observer)(struct trms_thread *t,
				const struct activation *a);

/* The thread's cost clock: access events, or clock ticks with the
 * library's own time taken out (see cost.h). */
static inline uint64_t thread_cost_now(struct trms_thread *t)
{
	if (config.cost == COST_EVENTS)
		return t->engine.events;
	return clock_ticks() - t->cost.excluded;
}

/* What @f's activation adds to its tuple, of cost @cost: with costs in
 * time (@timed), what the thread's meter grew by since the frame's start
 * is the library's time taken out of the cost, and the part of it
 * measured; the rest was estimated (cost.h). */
static inline __attribute__((always_inline)) struct tuple_add
thread_tuple_add(const struct trms_thread *t, const struct frame *f,
		 uint64_t cost, const bool timed)
{
	uint64_t library = timed ? t->cost.excluded - f->excluded_start : 0;
	uint64_t measured = timed ? t->cost.measured - f->measured_start : 0;

	return (struct tuple_add){
		.cost = cost,
		.induced_thread = (uint64_t)f->induced_thread,
		.induced_external = (uint64_t)f->induced_external,
		.library = library,
		.estimated = library - measured,
	};
}

/* Record the activation of the popped frame @f, of cost @cost, unless
 * profiling was paused during it; its cost was read now, on the clock
 * with (@timed) or without the library's time (thread_tuple_add). */
static inline __attribute__((always_inline)) void
thread_record(struct trms_thread *t, const struct frame *f, uint64_t cost,
	      const bool timed)
{
	if (__builtin_expect(runtime_observer != NULL, 0)) {
		struct tuple_add a = thread_tuple_add(t, f, cost, timed);
		return thread_record_observed(t, f, a.cost, a.library,
					      a.estimated);
	}
	if (!f->tag || f->tag != runtime_tag())
		return;
	struct tuple_add a = thread_tuple_add(t, f, cost, timed);
	if (__builtin_expect(tuple_table_record(atomic_load_explicit(
						    &t->recording,
						    memory_order_relaxed),
					    f->region, (uint64_t)f->trms,
					    (uint64_t)f->rms, &a) != 0,
			     0))
		thread_record_failed();
}

/* Around a call in which the calling thread may wait: it counts as
 * blocked meanwhile (see blocking_hooks.c). */
static inline struct sampler_thread *thread_block_begin(void)
{
	struct trms_thread *t = thread_current;

	/* A busy thread is in the library (in a handler of the library's:
	 * the sample handler's unwinder, say): it is not the program
	 * waiting. */
	if (!t || t->busy || !sampler_active() ||
	    signals_in_library_handler())
		return NULL;
	sampler_wait_begin(&t->sampler);
	return &t->sampler;
}

static inline void thread_block_end(struct sampler_thread *s)
{
	if (s)
		sampler_blocked(s, false);
}

/* Around a call passed on to the C library that holds none of its locks
 * and may let a sample in that was held back (the program unblocking the
 * sampling signal): that sample, finding the thread inside the C
 * library, may still open libunwind (unwind.h). */
static inline struct sampler_thread *thread_pass_begin(void)
{
	struct trms_thread *t = thread_current;

	if (!t || t->busy || !sampler_active())
		return NULL;
	sampler_passing(&t->sampler, true);
	return &t->sampler;
}

static inline void thread_pass_end(struct sampler_thread *s)
{
	if (s)
		sampler_passing(s, false);
}

/* Clock time the thread has spent on slow paths so far: registering
 * names, creating shadow memory, growing its stack or tuple table.  Such
 * work is timed where it happens and excluded exactly. */
static inline uint64_t thread_slow_ticks(const struct trms_thread *t)
{
	return t->lookup_slow_ticks + t->engine.slow_ticks +
	       t->tuples.slow_ticks +
	       (t->windows ? t->windows->spare.slow_ticks : 0);
}

/* The library's own time in @t, metered: its calls' time taken out of
 * the costs (with costs in ns) and its sample handler's, of which the
 * part that interrupted the program's code was taken out of the costs
 * too (thread_exclude_ticks), and is in the first already. */
static inline uint64_t thread_library_ns(const struct trms_thread *t)
{
	return clock_ticks_to_ns(
		__atomic_load_n(&t->cost.excluded, __ATOMIC_RELAXED) +
		cct_load(&t->sampler.handler_ticks) -
		cct_load(&t->sampler.handed_ticks));
}

/* Activations of @t that could not be recorded (out of memory). */
static inline uint64_t thread_dropped(const struct trms_thread *t)
{
	return __atomic_load_n(&t->tuples.dropped, __ATOMIC_RELAXED) +
	       (t->windows ? __atomic_load_n(&t->windows->spare.dropped,
					     __ATOMIC_RELAXED)
			   : 0);
}

/* The tables that hold @t's activations, into @out (PROFILE_FOLD_MAX):
 * with windows, the one it records into, the ended window's, the
 * windows written.  @return how many. */
static inline size_t thread_tables(const struct trms_thread *t,
				   const struct tuple_table **out)
{
	out[0] = &t->tuples;
	if (!t->windows)
		return 1;
	out[1] = &t->windows->spare;
	out[2] = &t->windows->past;
	return 3;
}

/* With windows (runtime.lock held): before a window is written, the
 * ended threads past the THREAD_ENDED_KEPT that ended last are chosen to
 * be folded after it, which the window says (fold_after); after it was
 * written and each thread's cut table is in its past
 * (thread_fold_chosen), they are. */
void thread_fold_choose(void);
void thread_fold_chosen(void);

/* The ordinal of the thread the ended ones are folded into (runtime.lock
 * held; 0 before there is one). */
uint32_t thread_folded_ordinal(void);

/* Close all of the calling thread's open activations, recording them as
 * ended now. */
void thread_close_all(struct trms_thread *t);

/* thread_close_all for the calling thread, unless it was interrupted
 * inside the library, whose state it was changing (the profile's last
 * write, from wherever it comes). */
void thread_close_own(void);

/* An access of @t's could not be recorded (no memory for its shadow):
 * none of its pending activations will be recorded, their input being
 * incomplete; counted (thread's incomplete). */
void thread_drop_pending(struct trms_thread *t);

#endif
