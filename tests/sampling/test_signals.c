/*
 * test_signals.c - signals: the program's own profiling signals and
 * timers keep working beside the library's; its own SIGTRAPs reach it
 * while samples come on SIGTRAP; a program that never retries EINTR
 * sees none.
 */
#define _GNU_SOURCE
#include "sampling.h"

#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ======================================================================
 * 3. The program's own profiling signals keep working
 * ====================================================================== */

static void own_timer_run(const char *mode)
{
	const unsigned hz = 1000;
	const double own_hz = 100;
	char *argv[] = { helper("sm-sigprof"), (char *)mode, "1.5", NULL };
	struct run r;
	struct profile_doc doc;
	int hits, sig;
	double cpu;

	run_sampled(mode, argv, hz, "cpu", NULL, 0, &r, &doc);
	SM_CHECK(sscanf(r.out, "hits %d cpu %lf signal %d", &hits, &cpu,
			     &sig) == 3,
		      "sm-sigprof printed '%s'", r.out);
	uint64_t samples = meta_u64(&doc, "samples");
	uint64_t sample_signal = meta_u64(&doc, "sample_signal");
	printf("own timer (%s): handler ran %d times in %.3f s of CPU "
	       "(%.1f Hz, asked %.0f); the library took %" PRIu64
	       " samples (%.0f Hz, asked %u) on signal %" PRIu64 "\n",
	       mode, hits, cpu, hits / cpu, own_hz, samples, samples / cpu,
	       hz, sample_signal);
	double expected = own_hz * cpu;
	SM_CHECK(fabs(hits - expected) <= 0.3 * expected,
		      "%s: expected the program's own handler (signal %d) to "
		      "run %.0f times +- 30%% (%.0f Hz x %.3f s of CPU), saw "
		      "%d",
		      r.command, sig, expected, own_hz, cpu, hits);
	SM_CHECK((double)samples >= 0.6 * hz * cpu,
		      "%s: expected the library to take at least 60%% of %.0f "
		      "samples (%u Hz x %.3f s of CPU), saw %" PRIu64,
		      r.command, hz * cpu, hz, cpu, samples);
	SM_CHECK(sample_signal != (uint64_t)sig,
		      "expected the library to sample on another signal than "
		      "the program's %d, saw sample_signal %" PRIu64,
		      sig, sample_signal);
	profile_doc_free(&doc);
	run_free(&r);
}

START_TEST(own_sigprof_and_itimer)
{
	own_timer_run("prof");
}
END_TEST

START_TEST(own_handler_on_sampling_signal)
{
	own_timer_run("rt");
}
END_TEST

/* ======================================================================
 * 3a. Samples on SIGTRAP, next to the program's own SIGTRAPs
 * ====================================================================== */

/* Can this process open a perf_event task clock that raises SIGTRAP (as
 * the library will, above the tick rate, unless told not to)? */
static bool kernel_traps(void)
{
	struct perf_event_attr pe;

	memset(&pe, 0, sizeof(pe));
	pe.type = PERF_TYPE_SOFTWARE;
	pe.size = sizeof(pe);
	pe.config = PERF_COUNT_SW_TASK_CLOCK;
	pe.sample_period = 1000000;
	pe.disabled = 1;
	pe.exclude_kernel = 1;
	pe.sigtrap = 1;
	pe.remove_on_exec = 1;
	int fd = (int)syscall(SYS_perf_event_open, &pe, 0, -1, -1, 0);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* Run sm-sigtrap MODE N at 1000 Hz with TRMS_SAMPLE_TRAP=@trap, expecting
 * exit status @status; its profile into *@doc if @doc. */
static void sigtrap_run(const char *mode, const char *n, const char *trap,
			int status, struct run *r, struct profile_doc *doc)
{
	char name[64], setting[32];
	char *argv[] = { helper("sm-sigtrap"), (char *)mode, (char *)n,
			 NULL };

	snprintf(name, sizeof(name), "sigtrap-%s-%s", mode, trap);
	snprintf(setting, sizeof(setting), "TRMS_SAMPLE_TRAP=%s", trap);
	run_sampled(name, argv, 1000, "cpu", setting, status, r, doc);
}

/* The program's handler runs for each of its SIGTRAPs (raise and int3),
 * exactly, and for none of the samples; samples still come, on SIGTRAP
 * where the kernel can, on another signal with TRMS_SAMPLE_TRAP=0. */
static void sigtrap_handler_case(const char *trap)
{
	struct run r;
	struct profile_doc doc;
	int hits;

	sigtrap_run("handler", "40", trap, 0, &r, &doc);
	SM_CHECK(sscanf(r.out, "hits %d", &hits) == 1,
		 "sm-sigtrap printed '%s'", r.out);
	uint64_t samples = meta_u64(&doc, "samples");
	uint64_t sig = meta_u64(&doc, "sample_signal");
	const char *source = profile_meta(&doc, "sample_source");
	printf("sigtrap (TRMS_SAMPLE_TRAP=%s): the program's handler ran %d "
	       "times for its 80 SIGTRAPs; %" PRIu64 " samples by %s on "
	       "signal %" PRIu64 "\n",
	       trap, hits, samples, source ? source : "?", sig);
	SM_CHECK(hits == 80,
		 "%s: expected the program's SIGTRAP handler to run 80 times "
		 "(40 raise, 40 int3), saw %d",
		 r.command, hits);
	SM_CHECK(samples >= 200,
		 "%s: expected at least 200 samples (about 0.5 s of CPU at "
		 "1000 Hz), saw %" PRIu64,
		 r.command, samples);
	if (!strcmp(trap, "0"))
		SM_CHECK(sig != SIGTRAP,
			 "TRMS_SAMPLE_TRAP=0, but samples came on SIGTRAP");
	else if (kernel_traps() && source && !strcmp(source, "perf_event"))
		SM_CHECK(sig == SIGTRAP,
			 "the kernel raises SIGTRAP for perf events here, but "
			 "samples came on signal %" PRIu64,
			 sig);
	profile_doc_free(&doc);
	run_free(&r);
}

START_TEST(sigtrap_program_handler)
{
	sigtrap_handler_case("1");
}
END_TEST

START_TEST(sigtrap_off)
{
	sigtrap_handler_case("0");
}
END_TEST

START_TEST(sigtrap_ignored_or_fatal_as_set)
{
	struct run r;

	sigtrap_run("ignore", "40", "1", 0, &r, NULL);
	SM_CHECK(strstr(r.out, "survived") != NULL,
		 "sm-sigtrap ignore printed '%s'", r.out);
	run_free(&r);
	sigtrap_run("default", "0", "1", 128 + SIGTRAP, &r, NULL);
	run_free(&r);
}
END_TEST

/* A sample's SIGTRAP still pending at exec would kill the new image,
 * whose handlers are the defaults: 20 execs in a row, sampled at 1 kHz. */
START_TEST(sigtrap_exec_chain)
{
	struct run r;

	sigtrap_run("exec", "20", "1", 0, &r, NULL);
	run_free(&r);
}
END_TEST

/* ======================================================================
 * 4. A program that never retries EINTR sees none
 * ====================================================================== */

static const char eintr_expected[] =
	"main: read 40 bytes one by one, then end of file\n"
	"main: poll timed out 15 times\n"
	"main: nanosleep slept 15 times\n"
	"main: usleep slept 15 times\n"
	"main: clock_nanosleep slept 20 times\n"
	"main: select timed out 10 times\n"
	"main: epoll_wait timed out 10 times\n"
	"main: sem_timedwait timed out 10 times\n"
	"main: read 64 MiB of /dev/zero and 16 MiB of /dev/urandom in one "
	"call each\n"
	"second: poll timed out 15 times\n"
	"second: nanosleep slept 15 times\n"
	"second: usleep slept 15 times\n"
	"second: clock_nanosleep slept 20 times\n"
	"second: select timed out 10 times\n"
	"second: epoll_wait timed out 10 times\n"
	"second: sem_timedwait timed out 10 times\n";

static void eintr_run(const char *clock)
{
	const unsigned hz = 1000;
	char *plain_dir = make_dir("plain"), *dir = make_dir(clock);
	char *argv[] = { helper("sm-eintr"), NULL };
	struct env env;
	struct run plain, sampled;
	struct profile_doc doc;

	/* Without the library: the reference. */
	run_in(plain_dir, argv, NULL, SM_DEADLINE, &plain);
	expect_status(&plain, 0);
	ck_assert_str_eq(plain.out, eintr_expected);
	ck_assert_str_eq(plain.err, "");

	env_sampled(&env, dir, hz, clock);
	run_in(dir, argv, env.v, SM_DEADLINE, &sampled);
	SM_CHECK(!sampled.timed_out && sampled.status == plain.status &&
			      !strcmp(sampled.out, plain.out) &&
			      !strcmp(sampled.err, plain.err),
		      "%s: expected the same exit status and output as "
		      "without the library (status %d, stdout:\n%s"
		      "stderr: '%s'), saw %sstatus %d, stdout:\n%s"
		      "stderr: '%s'",
		      sampled.command, plain.status, plain.out, plain.err,
		      sampled.timed_out ? "a timeout, " : "", sampled.status,
		      sampled.out, sampled.err);
	ck_assert_uint_eq(read_profiles(dir, &doc, 1), 1);
	uint64_t samples = meta_u64(&doc, "samples");
	printf("eintr (%s): same output and status as without the library; "
	       "%" PRIu64 " samples, %.1f s with, %.1f s without\n",
	       clock, samples, sampled.seconds, plain.seconds);
	/* cpu: ~0.25 s of CPU burnt between calls; wall: 3 threads for
	 * about 2 s each. */
	SM_CHECK(samples >= (strcmp(clock, "wall") ? 100u : 2000u),
		      "%s: expected the library to sample (at least %u "
		      "samples), saw %" PRIu64,
		      sampled.command, strcmp(clock, "wall") ? 100u : 2000u,
		      samples);
	profile_doc_free(&doc);
	run_free(&plain);
	run_free(&sampled);
	env_free(&env);
	free(argv[0]);
	free(dir);
	free(plain_dir);
}

START_TEST(eintr_cpu_clock)
{
	eintr_run("cpu");
}
END_TEST

START_TEST(eintr_wall_clock)
{
	eintr_run("wall");
}
END_TEST

void add_signal_tests(const struct sampling_cases *c)
{
	tcase_add_test(c->own_timers, own_sigprof_and_itimer);
	tcase_add_test(c->own_timers, own_handler_on_sampling_signal);
	tcase_add_test(c->sigtrap, sigtrap_program_handler);
	tcase_add_test(c->sigtrap, sigtrap_off);
	tcase_add_test(c->sigtrap, sigtrap_ignored_or_fatal_as_set);
	tcase_add_test(c->sigtrap, sigtrap_exec_chain);
	tcase_add_test(c->eintr_cpu, eintr_cpu_clock);
	tcase_add_test(c->eintr_wall, eintr_wall_clock);
}
