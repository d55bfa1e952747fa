/*
 * calibrate.c - the cost calibration (see calibrate.h, cost.h and
 * docs/cost.md).
 */
#define _GNU_SOURCE
#include "calibrate.h"

#include <sched.h>
#include <signal.h>
#include <string.h>

#include "call.h"
#include "base/log.h"
#include "base/vm.h"

/*
 * Calibration, once per process, on the first thread that begins a region
 * with costs in nanoseconds (before that, no cost needs the estimates and
 * floors: see calibrate_thread), through the API's own paths (the calls
 * api.c hands over, not the exported symbols), on a region that is never
 * recorded (its name is planted in the name cache with the id
 * REGION_CALIBRATION):
 *  1. 101 empty begin/end pairs and 101 small reads with every call
 *     measured seed every thread's estimates for the three kinds of call;
 *  2. blocks of 1000 empty pairs and of 1000 small reads as the program
 *     would make them (one in COST_SAMPLE_EVERY measured), each timed as
 *     a whole, the quickest of 5 kept: what a pair takes beyond the begin
 *     and end estimates is the floor, what a read takes beyond its
 *     estimate the access floor.  Timing a block averages out the clock's
 *     steps, which single measurements cannot (see typical()).
 */
static struct cost_calibration calibration VM_SET_APART;

/* 0: this process has not calibrated; 1: a thread is calibrating; 2: the
 * estimates and floors in runtime are set. */
static atomic_int calibration_state;

/* The observer the calibration replaced (a test's), put back after it. */
static void (*observer_before)(struct trms_thread *,
			       const struct activation *);

/* Setting an observer is what keeps the calibration's activations out of
 * the profile (thread_record_observed); they need no looking at. */
static void calibration_observer(struct trms_thread *t,
				 const struct activation *a)
{
	(void)t;
	(void)a;
}

/*
 * The typical value of @n measured durations: their mean, each counting
 * for at most four times the median (a preempted call must not inflate
 * it).  Not the median itself: where the time-stamp counter advances in
 * coarse steps (26 ticks on some virtual machines) every sample is a
 * multiple of the step and the median is off by up to a step.
 */
static uint64_t typical(uint64_t *v, unsigned n)
{
	if (!n)
		return 0;
	/* Insertion sort: a hundred values, once. */
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j > 0 && v[j - 1] > v[j]; j--) {
			uint64_t tmp = v[j];
			v[j] = v[j - 1];
			v[j - 1] = tmp;
		}
	uint64_t cap = 4 * v[n / 2], sum = 0;
	for (unsigned i = 0; i < n; i++)
		sum += v[i] < cap ? v[i] : cap;
	return (sum + n / 2) / n;
}

static const char calibration_name[] = "trms: calibration";

/* The API's calls, as api.c handed them over. */
static const struct calibration_calls *api;

/* @n empty begin/end pairs of the calibration region. */
static void empty_pairs(unsigned n)
{
	while (n--) {
		api->begin(calibration_name);
		api->end(calibration_name);
	}
}

/* @n small reads (inside the calibration region). */
static void small_reads(unsigned n)
{
	static char data[8];

	while (n--)
		api->read(data, sizeof(data));
}

/* Blocks of calls timed, and calls per block: the quickest block is the
 * one no sample, page fault or preemption fell into. */
enum { CALIBRATION_BLOCKS = 5, CALIBRATION_BLOCK = 1000 };

/* @n reads of the clock as a measured call makes them. */
static void clock_reads(unsigned n)
{
	while (n--)
		(void)clock_ticks_after();
}

/* Ticks per call of @calls, on average over the quickest block, beyond
 * what *@taken (if given: a running total of ticks) grew by during it. */
static uint64_t quickest_block_beyond(void (*calls)(unsigned),
				      const uint64_t *taken)
{
	uint64_t best = UINT64_MAX, beyond = 0;

	for (unsigned b = 0; b < CALIBRATION_BLOCKS; b++) {
		uint64_t before = taken ? *taken : 0;
		uint64_t start = clock_ticks();
		calls(CALIBRATION_BLOCK);
		uint64_t ticks = clock_ticks() - start;
		uint64_t grew = taken ? *taken - before : 0;
		if (ticks < best) {
			best = ticks;
			beyond = ticks > grew ? ticks - grew : 0;
		}
	}
	return beyond / CALIBRATION_BLOCK;
}

static uint64_t quickest_block(void (*calls)(unsigned))
{
	return quickest_block_beyond(calls, NULL);
}

/*
 * What a small read costs beyond what its metering takes out of the costs
 * (the time outside its readings), metered as this process meters reads
 * (call.h): with every activation measured, most charged the running
 * estimate; where activations are skipped, a measured activation's first
 * ones timed exactly and one in 8 of the rest.  (Block time less the
 * estimate counted the clock reads of exactly timed reads as unseen: 40 ns
 * an access here, and costs over-corrected below the program's own time.)
 */
static uint64_t access_floor(struct trms_thread *t)
{
	t->cost.access_floor = 0;
	return quickest_block_beyond(small_reads, &t->cost.excluded);
}

static void calibrate(struct trms_thread *t)
{
	unsigned i = name_cache_slot(calibration_name);
	__typeof__(t->names.slot[0]) saved = t->names.slot[i];

	if (!call_timed())
		return;
	memset(&calibration, 0, sizeof(calibration));
	t->names.slot[i].ptr = calibration_name;
	t->names.slot[i].id = REGION_CALIBRATION;
	t->names.slot[i].immutable = true;
	t->names.slot[i].generation =
		__atomic_load_n(&region_cache_generation, __ATOMIC_RELAXED);
	/* What one of a measured call's clock reads takes (a block that a
	 * preemption fell into would make every estimate learn too little,
	 * see cost_learnable). */
	runtime.cost_clock_read = t->cost.clock_read =
		quickest_block(clock_reads);

	observer_before = runtime_observer;
	runtime_observer = calibration_observer;
	t->cost.calibrating = &calibration;
	empty_pairs(COST_CALIBRATION_CALLS);
	api->begin(calibration_name);
	small_reads(COST_CALIBRATION_CALLS);
	api->end(calibration_name);
	t->cost.calibrating = NULL;
	for (unsigned op = 0; op < COST_OPS; op++)
		runtime.cost_estimate[op] =
			typical(calibration.samples[op], calibration.n[op]);
	thread_cost_defaults(t);

	uint64_t pair = quickest_block(empty_pairs);
	uint64_t calls = runtime.cost_estimate[COST_OP_BEGIN] +
			 runtime.cost_estimate[COST_OP_END];
	runtime.cost_floor = pair > calls ? pair - calls : 0;
	api->begin(calibration_name);
	runtime.cost_access_floor = access_floor(t);
	api->end(calibration_name);
	if (selection.budget) {
		/* What a skipped activation costs, for the budget. */
		selection.calibrating_skips = true;
		selection.skip_ticks = quickest_block(empty_pairs);
		selection.calibrating_skips = false;
	}
	runtime_observer = observer_before;
	t->names.slot[i] = saved;
	thread_cost_defaults(t);
	log_debug("cost calibration (ticks): clock read %llu, floor %llu, "
		  "access floor %llu, begin %llu, end %llu, small access %llu, "
		  "skipped pair %llu",
		  (unsigned long long)runtime.cost_clock_read,
		  (unsigned long long)runtime.cost_floor,
		  (unsigned long long)runtime.cost_access_floor,
		  (unsigned long long)runtime.cost_estimate[COST_OP_BEGIN],
		  (unsigned long long)runtime.cost_estimate[COST_OP_END],
		  (unsigned long long)runtime.cost_estimate[COST_OP_ACCESS],
		  (unsigned long long)selection.skip_ticks);
}

/*
 * Give @t the process's estimates and floors before its first activation,
 * calibrating them first if no thread has.  A thread that finds another
 * calibrating waits for it (about a millisecond).  The calibrating thread
 * blocks signals meanwhile: a handler that jumped out of the calibration
 * would leave the others waiting for ever.
 */
void calibrate_thread(struct trms_thread *t,
		      const struct calibration_calls *calls)
{
	int state = 0;

	/* The calibration's own calls (and a signal handler's, before the
	 * signals are blocked) must not come back here. */
	t->cost.calibrated = true;
	if (atomic_compare_exchange_strong(&calibration_state, &state, 1)) {
		sigset_t all, saved;
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &saved);
		api = calls;
		calibrate(t);
		pthread_sigmask(SIG_SETMASK, &saved, NULL);
		atomic_store(&calibration_state, 2);
		return;
	}
	while (state != 2) {
		sched_yield();
		state = atomic_load(&calibration_state);
	}
	thread_cost_defaults(t);
}

void calibrate_after_fork_child(void)
{
	/* Another thread was calibrating: it does not exist here. */
	if (atomic_load(&calibration_state) == 1) {
		runtime_observer = observer_before;
		atomic_store(&calibration_state, 0);
	}
}
