/*
 * test_rates.c - rates and timers: the rate asked is the rate delivered,
 * by the CPU-time timer and the perf_event task clock; periods expiring
 * while signals are blocked are counted; CPU time spent in the kernel is
 * sampled like CPU time in user space, as work.
 */
#define _GNU_SOURCE
#include "sampling.h"

#include <inttypes.h>
#include <stdlib.h>
#include <time.h>

static unsigned tick_hz(void)
{
	struct timespec res;

	ck_assert_int_eq(clock_getres(CLOCK_MONOTONIC_COARSE, &res), 0);
	ck_assert(res.tv_sec == 0 && res.tv_nsec > 0);
	return (unsigned)(1000000000 / res.tv_nsec);
}

/* The rate asked for is the rate delivered, by either timer: up to the
 * tick rate (the default 100 Hz, and the tick rate itself) the CPU-time
 * timer, checked at ticks, late periods counted in the next sample; at
 * 1000 Hz the perf_event task clock where the kernel lets us open one
 * (else the timer, capped by the tick). */
static void rate_run(unsigned hz)
{
	char name[32];
	char *argv[] = { helper("sm-callers"), "1.0", NULL };
	struct run r;
	struct profile_doc doc;

	snprintf(name, sizeof(name), "rate-%u", hz);
	run_sampled(name, argv, hz, "cpu", NULL, 0, &r, &doc);
	const char *source = profile_meta(&doc, "sample_source");
	uint64_t delivered = meta_u64(&doc, "sample_hz_delivered");
	printf("rate: %u Hz asked, %" PRIu64 " Hz delivered by %s\n", hz,
	       delivered, source ? source : "?");
	SM_CHECK(source != NULL, "no meta sample_source in %s", doc.path);
	if (hz <= tick_hz())
		SM_CHECK(!strcmp(source, "posix_timer"),
			 "at %u Hz expected the CPU-time timer, saw %s", hz,
			 source);
	if (!strcmp(source, "perf_event") || hz <= tick_hz())
		SM_CHECK(delivered >= 0.9 * hz && delivered <= 1.05 * hz,
			 "%u Hz asked, %" PRIu64 " Hz delivered by %s", hz,
			 delivered, source);
	else
		SM_CHECK(delivered > 0 && delivered <= 1.05 * hz,
			 "%u Hz asked, %" PRIu64 " Hz delivered by %s", hz,
			 delivered, source);
	profile_doc_free(&doc);
	run_free(&r);
}

START_TEST(rate_asked_is_rate_delivered)
{
	rate_run(100);
	rate_run(tick_hz());
	rate_run(1000);
}
END_TEST

/* TRMS_SAMPLE_TIMER chooses the timer whatever the rate: tick, the
 * CPU-time timer at 1000 Hz, above the tick rate, each signal counting
 * the periods it covers (overrun), so the rate asked is still the rate
 * delivered; perf, the task clock at 100 Hz, below it (where the kernel
 * lets us open one: the default 1000 Hz run says). */
START_TEST(timer_chosen)
{
	char *argv[] = { NULL, "1.0", NULL }; /* argv[0]: freed by each run */
	struct run r;
	struct profile_doc doc;
	const unsigned hz = tick_hz();

	argv[0] = helper("sm-callers");
	run_sampled("timer-tick", argv, 1000, "cpu", "TRMS_SAMPLE_TIMER=tick",
		    0, &r, &doc);
	const char *source = profile_meta(&doc, "sample_source");
	uint64_t delivered = meta_u64(&doc, "sample_hz_delivered");
	uint64_t samples = meta_u64(&doc, "samples");
	uint64_t overrun = meta_u64(&doc, "samples_overrun");
	printf("timer tick at 1000 Hz (tick %u Hz): %" PRIu64 " Hz delivered "
	       "by %s, %" PRIu64 " of %" PRIu64 " samples overrun\n",
	       hz, delivered, source ? source : "?", overrun, samples);
	SM_CHECK(source && !strcmp(source, "posix_timer"),
		 "TRMS_SAMPLE_TIMER=tick at 1000 Hz: %s",
		 source ? source : "no sample_source");
	SM_CHECK(delivered >= 900 && delivered <= 1050,
		 "TRMS_SAMPLE_TIMER=tick: 1000 Hz asked, %" PRIu64
		 " delivered", delivered);
	if (hz < 1000)
		SM_CHECK(overrun >= samples / 2,
			 "above the tick rate most samples count more than "
			 "one period: %" PRIu64 " of %" PRIu64 " overrun",
			 overrun, samples);
	profile_doc_free(&doc);
	run_free(&r);

	argv[0] = helper("sm-callers");
	run_sampled("timer-auto", argv, 1000, "cpu", NULL, 0, &r, &doc);
	bool perf = !strcmp(profile_meta(&doc, "sample_source") ?: "",
			    "perf_event");
	profile_doc_free(&doc);
	run_free(&r);
	argv[0] = helper("sm-callers");
	run_sampled("timer-perf", argv, 100, "cpu", "TRMS_SAMPLE_TIMER=perf",
		    0, &r, &doc);
	source = profile_meta(&doc, "sample_source");
	delivered = meta_u64(&doc, "sample_hz_delivered");
	printf("timer perf at 100 Hz: %" PRIu64 " Hz delivered by %s\n",
	       delivered, source ? source : "?");
	SM_CHECK(source && !strcmp(source, perf ? "perf_event" : "posix_timer"),
		 "TRMS_SAMPLE_TIMER=perf at 100 Hz: %s (the task clock %s)",
		 source ? source : "no sample_source",
		 perf ? "works here" : "is not allowed here");
	SM_CHECK(delivered >= 90 && delivered <= 105,
		 "TRMS_SAMPLE_TIMER=perf: 100 Hz asked, %" PRIu64 " delivered",
		 delivered);
	profile_doc_free(&doc);
	run_free(&r);
}
END_TEST

/* A program that works with every signal blocked: the CPU-time timer's
 * signal waits, the kernel counts the periods that expire meanwhile as
 * its overrun, and the one sample that finally arrives counts them all. */
START_TEST(periods_counted_while_signals_blocked)
{
	const unsigned hz = tick_hz();
	char *argv[] = { helper("sm-masked"), "0.5", NULL };
	struct run r;
	struct profile_doc doc;
	double cpu;

	run_sampled("masked", argv, hz, "cpu", NULL, 0, &r, &doc);
	SM_CHECK(sscanf(r.out, "cpu %lf", &cpu) == 1,
		 "sm-masked printed '%s'", r.out);
	uint64_t samples = meta_u64(&doc, "samples");
	uint64_t overrun = meta_u64(&doc, "samples_overrun");
	const char *source = profile_meta(&doc, "sample_source");
	printf("masked: %.3f s of CPU with signals blocked at %u Hz: %" PRIu64
	       " samples, %" PRIu64 " of them overrun (%s)\n",
	       cpu, hz, samples, overrun, source ? source : "?");
	SM_CHECK(source && !strcmp(source, "posix_timer"),
		 "at the tick rate expected the CPU-time timer, saw %s",
		 source ? source : "none");
	SM_CHECK((double)samples >= 0.8 * hz * cpu,
		 "%s: expected about %.0f samples (%u Hz x %.3f s of CPU), "
		 "saw %" PRIu64 " (%" PRIu64 " overrun)",
		 r.command, hz * cpu, hz, cpu, samples, overrun);
	SM_CHECK((double)overrun >= 0.5 * hz * cpu,
		 "%s: expected most periods of the blocked stretch to be "
		 "overrun, saw %" PRIu64 " of %" PRIu64,
		 r.command, overrun, samples);
	profile_doc_free(&doc);
	run_free(&r);
}
END_TEST

/* ======================================================================
 * 3b. CPU time in the kernel is sampled like CPU time in user space, as
 *     work
 * ====================================================================== */

START_TEST(system_time_is_sampled)
{
	const unsigned hz = 1000;
	char *argv[] = { helper("sm-systime"), "1.0", NULL };
	struct run r;
	struct profile_doc doc;
	struct tree t;
	double user, sys;

	run_sampled("systime", argv, hz, "cpu", NULL, 0, &r, &doc);
	SM_CHECK(sscanf(r.out, "user %lf sys %lf", &user, &sys) == 2,
		      "sm-systime printed '%s'", r.out);
	tree_build(&t, &doc);
	struct agg burn = under(&t, "kernel_burn", NULL, -1);
	uint64_t samples = meta_u64(&doc, "samples");
	const char *source = profile_meta(&doc, "sample_source");
	printf("system time: %.3f s user + %.3f s sys in kernel_burn: %" PRIu64
	       " samples there (%" PRIu64 " in all, source %s; asked %u Hz)\n",
	       user, sys, burn.samples, samples, source ? source : "?", hz);
	SM_CHECK((double)burn.samples >= 0.6 * hz * (user + sys),
		      "%s: expected at least 60%% of %.0f samples in kernel_burn "
		      "(%u Hz x %.3f s of CPU time: %.3f user, %.3f system), saw "
		      "%" PRIu64 " (%" PRIu64 " in the whole profile, "
		      "sample_source %s)",
		      r.command, hz * (user + sys), hz, user + sys, user, sys,
		      burn.samples, samples, source ? source : "?");
	tree_free(&t);
	profile_doc_free(&doc);
	run_free(&r);
}
END_TEST

/* The CPU clock only samples a running thread: its time inside a hooked
 * read(), copying, is work, though the thread counts as inside a
 * blocking call meanwhile. */
START_TEST(cpu_samples_in_hooked_call_are_work)
{
	char *argv[] = { helper("sm-systime"), "0.5", "hooked", NULL };
	struct run r;
	struct profile_doc doc;
	struct tree t;

	run_sampled("systime-hooked", argv, 1000, "cpu", NULL, 0, &r, &doc);
	tree_build(&t, &doc);
	struct agg burn = under(&t, "kernel_burn", NULL, -1);
	printf("hooked read: %" PRIu64 " samples in kernel_burn, %" PRIu64
	       " work, %" PRIu64 " blocked\n",
	       burn.samples, burn.work, burn.blocked);
	SM_CHECK(burn.samples >= 100, "%s: only %" PRIu64 " samples",
		 r.command, burn.samples);
	SM_CHECK(burn.blocked == 0 && burn.work == burn.samples,
		 "%s: of %" PRIu64 " CPU-clock samples in kernel_burn, %" PRIu64
		 " counted as work and %" PRIu64 " as blocked",
		 r.command, burn.samples, burn.work, burn.blocked);
	tree_free(&t);
	profile_doc_free(&doc);
	run_free(&r);
}
END_TEST

/* Above the tick rate `auto` takes the task clock; a thread that waits
 * at a server's pace leaves it for the CPU-time timer after its first
 * 50 ms of CPU time (every context switch switches a task clock, and
 * costs), a thread that only works keeps it; TRMS_SAMPLE_TIMER=perf
 * keeps it for both.  Where the kernel gives no task clock the timer is
 * the CPU-time one from the start and there is nothing to leave. */
static void waits_run(const char *name, const char *extra, unsigned hz,
		      uint64_t *left, bool *perf)
{
	char *argv[] = { helper("sm-waits"), "0.6", NULL };
	struct run r;
	struct profile_doc doc;

	run_sampled(name, argv, hz, "cpu", extra, 0, &r, &doc);
	const char *source = profile_meta(&doc, "sample_source");
	SM_CHECK(profile_meta(&doc, "sample_threads_left_perf") != NULL,
		 "no meta sample_threads_left_perf in %s", doc.path);
	*left = meta_u64(&doc, "sample_threads_left_perf");
	*perf = source && !strcmp(source, "perf_event");
	uint64_t delivered = meta_u64(&doc, "sample_hz_delivered");
	printf("%s at %u Hz: %s, %" PRIu64 " thread(s) left it, %" PRIu64
	       " Hz delivered\n", name, hz, source ? source : "?", *left,
	       delivered);
	SM_CHECK(delivered >= 0.8 * hz && delivered <= 1.05 * hz,
		 "%s: %u Hz asked, %" PRIu64 " Hz delivered", name, hz,
		 delivered);
	profile_doc_free(&doc);
	run_free(&r);
}

START_TEST(waiting_thread_leaves_task_clock)
{
	unsigned hz = 2 * tick_hz();
	uint64_t left;
	bool perf;

	waits_run("waits-auto", NULL, hz, &left, &perf);
	if (!perf) {
		printf("no task clock here: nothing to leave\n");
		SM_CHECK(left == 0, "%" PRIu64 " threads left a task clock "
			 "there was not", left);
		return;
	}
	SM_CHECK(left == 1,
		 "the waiting thread (and only it) leaves the task clock: "
		 "%" PRIu64 " threads left it", left);
	waits_run("waits-perf", "TRMS_SAMPLE_TIMER=perf", hz, &left, &perf);
	SM_CHECK(left == 0, "TRMS_SAMPLE_TIMER=perf: %" PRIu64 " threads "
		 "left the task clock", left);
}
END_TEST

void add_rate_tests(const struct sampling_cases *c)
{
	tcase_add_test(c->callers, rate_asked_is_rate_delivered);
	tcase_add_test(c->callers, periods_counted_while_signals_blocked);
	tcase_add_test(c->callers, timer_chosen);
	tcase_add_test(c->callers, waiting_thread_leaves_task_clock);
	tcase_add_test(c->system_time, system_time_is_sampled);
	tcase_add_test(c->system_time, cpu_samples_in_hooked_call_are_work);
}
