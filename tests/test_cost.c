/*
 * test_cost.c - costs in nanoseconds leave the profiler's own work out: a
 * region whose own work is constant shows the same cost however much
 * memory it annotates or how many regions it nests, while a region whose
 * work really grows shows it.  (Runs with TRMS_COST=ns.)
 *
 * Each check times the region and the annotation calls in it from the
 * outside, and requires that the region's cost be its time less the
 * calls' time, give or take a third of the calls' time: without the
 * exclusion all of the calls' time would show.
 */
#define _GNU_SOURCE
#include <check.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trms.h"

#include "base/clock.h"
#include "runtime/thread.h"
#include "suite_main.h"

/* At least REPS repetitions, and more (up to MAX_REPS) until a few ran
 * without losing the CPU. */
#define REPS 15
#define MAX_REPS 200
#define UNDISTURBED_WANTED 3
#define MAX_SIZE ((size_t)4 << 20)

/* Each repetition's cost (ns), if its activation was measured: every one,
 * unless the test runs with activations sampled (meson.build's
 * cost-sampled: TRMS_ACTIVATION_SAMPLE=2, where a measured activation's
 * accesses are metered otherwise: docs/cost.md). */
static uint64_t costs[MAX_REPS], rep_cost[MAX_REPS];
static bool measured[MAX_REPS];
static unsigned n_costs, rep;
static double ns_per_tick;

/* Costs in the order measured (costs), and by repetition of region()
 * (rep_cost). */
static void observe(struct trms_thread *t, const struct activation *a)
{
	uint64_t ns = (uint64_t)((double)a->cost * ns_per_tick);

	(void)t;
	if (n_costs < MAX_REPS)
		costs[n_costs++] = ns;
	if (rep < MAX_REPS) {
		rep_cost[rep] = ns;
		measured[rep] = true;
	}
}

static bool sampled(void)
{
	const char *every = getenv("TRMS_ACTIVATION_SAMPLE");

	return every && strcmp(every, "1") != 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double median(uint64_t *v, unsigned n)
{
	qsort(v, n, sizeof(v[0]), cmp_u64);
	return (double)v[n / 2];
}

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t monotonic_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* Work that takes the same time every call (a few hundred us). */
static void constant_work(void)
{
	static volatile unsigned sink __attribute__((unused));
	unsigned x = 1;

	for (unsigned i = 0; i < 200000; i++)
		x = x * 1664525u + 1013904223u;
	sink = x;
}

static char *buffer;

/* Annotate @calls accesses of @size bytes, 64 bytes apart (reads, or
 * writes then reads). */
static void annotate(size_t size, unsigned calls, bool write)
{
	size_t offset = 0;

	for (unsigned c = 0; c < calls; c++) {
		if (write)
			trms_write(buffer + offset, size);
		trms_read(buffer + offset, size);
		offset += 64;
		if (offset + size > MAX_SIZE)
			offset = 0;
	}
}

/* Add @n empty regions. */
static void nest(unsigned n)
{
	for (unsigned c = 0; c < n; c++) {
		trms_region_begin("child");
		trms_region_end("child");
	}
}

struct measured {
	double cost;	 /* the region's cost, as profiled */
	double wall;	 /* the region's time, from outside */
	double overhead; /* the annotations' time, from outside */
};

/*
 * A region doing constant work, then @annotations(@size, @calls, @write)
 * or @nested(@calls) if given: the activation whose annotations took the
 * least time, of those that kept the CPU throughout.  Time the thread
 * spends preempted (by another thread, or by the hypervisor: either way
 * it stops counting as the thread's CPU time) is time that neither the
 * library nor the program spent working, and which of them a profiler
 * should charge for it is moot.  On a busy machine more repetitions are
 * run, until a few kept the CPU.
 */
static struct measured region(void (*annotations)(size_t, unsigned, bool),
			      void (*nested)(unsigned), size_t size,
			      unsigned calls, bool write)
{
	static struct measured m[MAX_REPS];
	static bool undisturbed[MAX_REPS];
	unsigned reps = 0, kept_cpu = 0;

	n_costs = 0;
	memset(measured, 0, sizeof(measured));
	rep = 0;
	while (reps < REPS ||
	       (kept_cpu < UNDISTURBED_WANTED && reps < MAX_REPS)) {
		unsigned r = reps++;
		rep = r;
		uint64_t cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		uint64_t enter = monotonic_ns();
		runtime_observer = observe;
		trms_region_begin("constant");
		runtime_observer = NULL;
		constant_work();
		uint64_t start = monotonic_ns();
		if (annotations)
			annotations(size, calls, write);
		if (nested)
			nested(calls);
		m[r].overhead = (double)(monotonic_ns() - start);
		runtime_observer = observe;
		trms_region_end("constant");
		runtime_observer = NULL;
		m[r].wall = (double)(monotonic_ns() - enter);
		rep = MAX_REPS; /* (the nested regions' ends are not it) */
		cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu;
		undisturbed[r] = measured[r] && (double)cpu >= 0.97 * m[r].wall;
		kept_cpu += undisturbed[r];
	}
	if (sampled())
		ck_assert_uint_gt(n_costs, 0);
	else
		ck_assert_uint_eq(n_costs, reps);
	int best = -1;
	for (unsigned r = 0; r < reps; r++) {
		m[r].cost = (double)rep_cost[r];
		if (!measured[r] || (kept_cpu && !undisturbed[r]))
			continue;
		if (best < 0 || m[r].overhead < m[best].overhead)
			best = (int)r;
	}
	if (!kept_cpu)
		printf("no repetition of %u kept the CPU throughout: the "
		       "quickest is judged\n",
		       reps);
	return m[best];
}

/* How many times a region is measured before its cost is judged wrong:
 * one measurement can still be disturbed in a way its own checks do not
 * see (a CI run failed so once in some twenty, 2026-11-28), a library
 * that charges the annotations to the region fails every one. */
#define ATTEMPTS 3

/* The region's cost is its time less its annotations', give or take a
 * third of the annotations' time, in one of ATTEMPTS measurements of
 * region(@annotations, @nested, @size, @calls, @write). */
static void check_excluded(const char *what,
			   void (*annotations)(size_t, unsigned, bool),
			   void (*nested)(unsigned), size_t size,
			   unsigned calls, bool write)
{
	struct measured m;
	bool fits = false;

	for (int attempt = 0; attempt < ATTEMPTS && !fits; attempt++) {
		m = region(annotations, nested, size, calls, write);
		double shown = m.cost - (m.wall - m.overhead);
		fits = 3 * shown < m.overhead && -3 * shown < m.overhead;
	}
	ck_assert_msg(fits,
		      "%s: the region costs %.0f ns and took %.0f ns, of "
		      "which its annotations %.0f ns (the last of %d "
		      "measurements)",
		      what, m.cost, m.wall, m.overhead, ATTEMPTS);
}

START_TEST(large_ranges_excluded)
{
	check_excluded("4 MiB written and read", annotate, NULL, MAX_SIZE, 1,
		       true);
}
END_TEST

START_TEST(many_small_accesses_excluded)
{
	check_excluded("100000 reads of 8 bytes", annotate, NULL, 8, 100000,
		       false);
}
END_TEST

START_TEST(nested_regions_excluded)
{
	check_excluded("100000 empty regions nested", NULL, nest, 0, 100000,
		       false);
}
END_TEST

static void setup(void)
{
	buffer = malloc(MAX_SIZE);
	ck_assert_ptr_nonnull(buffer);
	memset(buffer, 1, MAX_SIZE);
	ns_per_tick = clock_ns_per_tick(); /* activations' costs are in ticks */
	/* The process's first region calibrates (docs/cost.md): not in the
	 * timed repetitions. */
	trms_region_begin("warm-up");
	trms_region_end("warm-up");
}

static void teardown(void)
{
	free(buffer);
}

/*
 * What the library takes out of a region's cost for its small reads is
 * never more than they took: over the quickest of 5 blocks of 1000 reads,
 * the time excluded (measured, estimated, and the access floor) is within
 * a quarter of the block's time.  With activations sampled a measured
 * activation times its first reads exactly, their clock reads in what
 * they took; a floor calibrated as for estimated reads counted those
 * twice (1.47 times the block when every such read was timed, costs taken
 * below the program's own time).  (With every
 * activation measured, reads are charged a running estimate, which
 * many_small_accesses_excluded judges.)
 */
START_TEST(small_reads_not_overcorrected)
{
	static char data[8];
	uint64_t best = UINT64_MAX, excluded_best = 0;

	for (int attempt = 0; attempt < 20 && best == UINT64_MAX; attempt++) {
		/* Sampled, the region may be skipped: then nothing is
		 * excluded at all, and the block tells nothing. */
		trms_region_begin("floor");
		struct trms_thread *t = thread_current;
		/* The running estimate learns these reads first (it may
		 * describe the cache-missing reads of another test). */
		for (int i = 0; i < 64 * 64; i++)
			trms_read(data, sizeof(data));
		for (int b = 0; b < 5; b++) {
			uint64_t excluded = t->cost.excluded;
			uint64_t start = clock_ticks();
			for (int i = 0; i < 1000; i++)
				trms_read(data, sizeof(data));
			uint64_t ticks = clock_ticks() - start;
			excluded = t->cost.excluded - excluded;
			if (excluded && ticks < best) {
				best = ticks;
				excluded_best = excluded;
			}
		}
		trms_region_end("floor");
	}
	ck_assert_uint_ne(best, UINT64_MAX);
	ck_assert_msg(4 * excluded_best <= 5 * best,
		      "1000 small reads took %llu ticks, the library took "
		      "%llu out of the cost",
		      (unsigned long long)best,
		      (unsigned long long)excluded_best);
}
END_TEST

/* The clock is real: work that does grow shows in the cost. */
START_TEST(real_work_is_measured)
{
	double small, large;

	n_costs = 0;
	runtime_observer = observe;
	for (unsigned r = 0; r < REPS; r++) {
		trms_region_begin("copy");
		memset(buffer, r, 4096);
		trms_region_end("copy");
	}
	small = median(costs, n_costs);
	n_costs = 0;
	for (unsigned r = 0; r < REPS; r++) {
		trms_region_begin("copy");
		memset(buffer, r, MAX_SIZE);
		trms_region_end("copy");
	}
	large = median(costs, n_costs);
	runtime_observer = NULL;
	ck_assert_msg(large > 20 * small,
		      "memset of 4 MiB costs %.0f ns, of 4 KiB %.0f ns", large,
		      small);
}
END_TEST

/*
 * The sample handler's time is the library's too: a sample that
 * interrupts a region's own work leaves its cost as if it had not come.
 * Samples raised by hand (each a whole sample: the stack walked, the
 * call tree updated) take a few ms in all, measured by the handler's own
 * meter; the region's cost must be its time less most of that.
 */
START_TEST(sample_handler_excluded)
{
	enum { SAMPLES = 2000 };
	ck_assert_msg(sampler_active(),
		      "sampling is off: the test needs the default sampling");
	trms_region_begin("sampled");
	struct trms_thread *t = thread_current;
	n_costs = 0;
	runtime_observer = observe;
	trms_region_end("sampled");
	trms_region_begin("sampled");
	runtime_observer = NULL;
	uint64_t handler = __atomic_load_n(&t->sampler.handler_ticks,
					   __ATOMIC_RELAXED);
	uint64_t samples = __atomic_load_n(&t->sampler.samples,
					   __ATOMIC_RELAXED);
	/* The samples raised by hand come inside the C library's
	 * pthread_kill, where libunwind is not opened (they would be kept
	 * until it is): open it first. */
	sampler_open_unwinder();
	uint64_t start = monotonic_ns();
	for (unsigned i = 0; i < SAMPLES; i++)
		pthread_kill(pthread_self(), sampler_signal());
	double wall = (double)(monotonic_ns() - start);
	double in_handler =
		(double)(__atomic_load_n(&t->sampler.handler_ticks,
					 __ATOMIC_RELAXED) -
			 handler) *
		ns_per_tick;
	samples = __atomic_load_n(&t->sampler.samples, __ATOMIC_RELAXED) -
		  samples;
	runtime_observer = observe;
	trms_region_end("sampled");
	runtime_observer = NULL;
	ck_assert_uint_eq(n_costs, 2);
	ck_assert_uint_ge(samples, SAMPLES);
	ck_assert_msg(in_handler > 0.05 * wall,
		      "the handler took %.0f ns of %.0f ns: too little to "
		      "tell",
		      in_handler, wall);
	double cost = (double)costs[1];
	ck_assert_msg(cost < wall - in_handler / 2,
		      "the region costs %.0f ns and took %.0f ns, of which "
		      "%.0f ns in the sample handler",
		      cost, wall, in_handler);
}
END_TEST

/*
 * The estimates and floors are calibrated at the first region begun, on
 * whichever thread begins it: every thread that begins a region, however
 * many at once, works with the process's calibrated values.
 */
enum { RACERS = 4 };
static pthread_barrier_t start_line;
static struct cost_meter seen[RACERS];

static void *first_region(void *arg)
{
	struct cost_meter *m = arg;

	pthread_barrier_wait(&start_line);
	trms_region_begin("racer");
	*m = thread_current->cost;
	trms_region_end("racer");
	return NULL;
}

START_TEST(every_thread_gets_the_calibration)
{
	pthread_t threads[RACERS];

	/* Accesses outside any region need no calibration. */
	trms_read(&seen, sizeof(seen));
	/* In a process of its own (Check forks unless told not to), no
	 * region has been begun yet. */
	const char *fork_mode = getenv("CK_FORK");
	if (!fork_mode || strcmp(fork_mode, "no") != 0)
		ck_assert(!thread_current || !thread_current->cost.calibrated);
	pthread_barrier_init(&start_line, NULL, RACERS);
	for (unsigned i = 0; i < RACERS; i++)
		ck_assert_int_eq(pthread_create(&threads[i], NULL,
						first_region, &seen[i]),
				 0);
	for (unsigned i = 0; i < RACERS; i++)
		pthread_join(threads[i], NULL);
	pthread_barrier_destroy(&start_line);
	ck_assert_uint_gt(runtime.cost_clock_read, 0);
	for (unsigned i = 0; i < RACERS; i++) {
		ck_assert(seen[i].calibrated);
		ck_assert_uint_eq(seen[i].clock_read, runtime.cost_clock_read);
		ck_assert_uint_eq(seen[i].floor, runtime.cost_floor);
		ck_assert_uint_eq(seen[i].access_floor,
				  runtime.cost_access_floor);
	}
}
END_TEST

static Suite *cost_suite(void)
{
	Suite *s = suite_create("cost");
	TCase *tc = tcase_create("cost");

	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, setup, teardown);
	SUITE_TESTS(tc, large_ranges_excluded, many_small_accesses_excluded,
		    nested_regions_excluded, real_work_is_measured);
	/* (It needs two given activations measured: not when sampled.) */
	if (!sampled())
		tcase_add_test(tc, sample_handler_excluded);
	else
		tcase_add_test(tc, small_reads_not_overcorrected);
	suite_add_tcase(s, tc);
	tc = tcase_create("calibration");
	tcase_add_test(tc, every_thread_gets_the_calibration);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(cost_suite());
}
