/*
 * test_stress.c - stress: threads doing malloc/free, pipe, file and
 * stdio I/O under 4 kHz sampling, under a deadline.
 */
#define _GNU_SOURCE
#include "sampling.h"

#include <inttypes.h>
#include <stdlib.h>

START_TEST(stress)
{
	const unsigned hz = 4000;
	double seconds = env_number("SM_STRESS_SECONDS", 8);
	int repeat = (int)env_number("SM_STRESS_REPEAT", 1);
	int threads = (int)env_number("SM_STRESS_THREADS", 6);
	const char *clocks = getenv("SM_STRESS_CLOCKS");

	if (!clocks || !*clocks)
		clocks = "cpu";
	for (int k = 0; k < repeat; k++) {
		/* The clocks of the list in turn: cpu,wall,cpu,... */
		char clock[16];
		const char *c = clocks;
		int listed = 1;
		for (const char *q = clocks; (q = strchr(q, ',')); q++)
			listed++;
		for (int skip = k % listed; skip > 0; skip--)
			c = strchr(c, ',') + 1;
		snprintf(clock, sizeof(clock), "%.*s", (int)strcspn(c, ","), c);
		char *name = xasprintf("stress-%d-%s", k, clock);
		char *dir = make_dir(name);
		char *secs = xasprintf("%g", seconds);
		char *nthreads = xasprintf("%d", threads);
		char *argv[] = { helper("sm-stress"), secs, nthreads, dir, NULL };
		struct env env;
		struct run r;
		struct profile_doc doc;

		env_sampled(&env, dir, hz, clock);
		run_in(dir, argv, env.v, 2 * seconds + 60, &r);
		expect_status(&r, 0);
		char *want = xasprintf("stress ok: %d threads, ", threads);
		SM_CHECK(!strncmp(r.out, want, strlen(want)),
			      "%s: expected output starting '%s', saw '%s'",
			      r.command, want, r.out);
		ck_assert_uint_eq(read_profiles(dir, &doc, 1), 1);
		uint64_t samples = meta_u64(&doc, "samples");
		printf("stress %d (%s, %g s, %d threads, %u Hz): %.1f s, %s"
		       "       %" PRIu64 " samples, %zu threads in the profile\n",
		       k, clock, seconds, threads, hz, r.seconds, r.out,
		       samples, doc.n_threads);
		SM_CHECK(samples > 0 && doc.n_threads >= (size_t)threads + 2,
			      "%s: expected samples (saw %" PRIu64
			      ") and at least %d threads in the profile "
			      "(saw %zu)",
			      r.command, samples, threads + 2, doc.n_threads);
		profile_doc_free(&doc);
		run_free(&r);
		env_free(&env);
		free(want);
		free(argv[0]);
		free(secs);
		free(nthreads);
		free(name);
		free(dir);
	}
}
END_TEST

void add_stress_tests(const struct sampling_cases *c)
{
	tcase_add_test(c->stress, stress);
}
