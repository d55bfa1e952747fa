/*
 * test_unwinder.c - libunwind is opened when a stack is first walked, and
 * only where that is safe (src/sampler/unwind.h): never by a process that
 * takes no sample; by the first sample of a process of one thread that
 * finds it in its own code, or inside a call it made that the library
 * passes to the C library; not by a sample inside a signal handler of the
 * program's, nor inside the C library's allocator; at start in a program
 * that has an allocator of its own; before the program changes its root
 * directory.
 */
#define _GNU_SOURCE
#include "sampling.h"

#include <inttypes.h>
#include <stdlib.h>

/* A program that takes no sample (sampling off) never maps libunwind;
 * one that is sampled maps it at its first sample, not at start. */
START_TEST(opened_at_the_first_sample)
{
	char *argv[] = { helper("sm-unwinder"), "maps", "0.3", NULL };
	struct run r;
	struct profile_doc doc;
	struct tree t;

	run_sampled("maps", argv, 100, "cpu", NULL, 0, &r, &doc);
	SM_CHECK(!strcmp(r.out, "start no\nend yes\n"),
		 "sampled at 100 Hz: libunwind mapped %s", r.out);
	tree_build(&t, &doc);
	struct agg burn = under(&t, "burn", "main", -1);
	printf("maps: %" PRIu64 " samples in burn, %" PRIu64
	       " dropped before libunwind was open\n",
	       burn.samples, meta_u64(&doc, "samples_dropped_unwind"));
	/* 30 expected: the first sample finds the program in burn(). */
	SM_CHECK(burn.samples >= 20, "%" PRIu64 " samples in burn: %s",
		 burn.samples, top_paths(&t, 5));
	SM_CHECK(meta_u64(&doc, "samples_dropped_unwind") == 0,
		 "%" PRIu64 " samples dropped",
		 meta_u64(&doc, "samples_dropped_unwind"));
	tree_free(&t);
	profile_doc_free(&doc);
	run_free(&r);

	argv[0] = helper("sm-unwinder");
	run_sampled("off", argv, 100, "cpu", "TRMS_SAMPLE_HZ=0", 0, &r,
		    NULL);
	SM_CHECK(!strcmp(r.out, "start no\nend no\n"),
		 "not sampled: libunwind mapped %s", r.out);
	run_free(&r);
}
END_TEST

/* Samples inside the program's signal handler (which may have interrupted
 * the allocator or the loader) never open libunwind: they are kept, and
 * walked when the first sample after the handler returned opens it. */
START_TEST(kept_in_the_programs_handler)
{
	char *argv[] = { helper("sm-unwinder"), "handler", "0.3", NULL };
	struct run r;
	struct profile_doc doc;
	struct tree t;

	run_sampled("handler", argv, 100, "cpu", NULL, 0, &r, &doc);
	SM_CHECK(!strcmp(r.out, "handler no\nend yes\n"),
		 "libunwind mapped: %s", r.out);
	tree_build(&t, &doc);
	struct agg inside = under(&t, "burn_in_handler", NULL, -1);
	struct agg after = under(&t, "burn_after", "main", -1);
	uint64_t dropped = meta_u64(&doc, "samples_dropped_unwind");
	printf("handler: %" PRIu64 " samples in the handler, %" PRIu64
	       " after it, %" PRIu64 " dropped\n",
	       inside.samples, after.samples, dropped);
	/* 30 each: the handler's kept, none lost. */
	SM_CHECK(inside.samples >= 20 && dropped == 0,
		 "%" PRIu64 " samples in the handler, %" PRIu64 " dropped: %s",
		 inside.samples, dropped, top_paths(&t, 5));
	SM_CHECK(after.samples >= 20, "%" PRIu64 " samples in burn_after: %s",
		 after.samples, top_paths(&t, 5));
	tree_free(&t);
	profile_doc_free(&doc);
	run_free(&r);
}
END_TEST

/* A program that spends its time inside malloc and free at 1000 Hz: no
 * sample opens libunwind there (re-entering the allocator would corrupt
 * its heap); the program runs as without the library, and the samples in
 * its own code are walked. */
START_TEST(not_opened_inside_malloc)
{
	char *argv[] = { helper("sm-unwinder"), "malloc", "0.5", NULL };
	struct run r;
	struct profile_doc doc;
	struct tree t;
	unsigned long sum;

	run_sampled("malloc", argv, 1000, "cpu", NULL, 0, &r, &doc);
	SM_CHECK(sscanf(r.out, "sum %lu", &sum) == 1 && sum > 0,
		 "printed '%s'", r.out);
	tree_build(&t, &doc);
	struct agg burn = under(&t, "burn", "main", -1);
	struct agg allocate = under(&t, "allocate", "main", -1);
	printf("malloc: %" PRIu64 " samples under allocate, %" PRIu64
	       " in burn, %" PRIu64 " dropped\n",
	       allocate.samples, burn.samples,
	       meta_u64(&doc, "samples_dropped_unwind"));
	SM_CHECK(burn.samples >= 300, "%" PRIu64 " samples in burn: %s",
		 burn.samples, top_paths(&t, 5));
	/* Most of allocate's first samples were kept (inside malloc) and
	 * walked in their copies later: under main all the same. */
	SM_CHECK(allocate.samples >= 300 &&
			 meta_u64(&doc, "samples_dropped_unwind") == 0,
		 "%" PRIu64 " samples under allocate, %" PRIu64 " dropped: %s",
		 allocate.samples, meta_u64(&doc, "samples_dropped_unwind"),
		 top_paths(&t, 5));
	tree_free(&t);
	profile_doc_free(&doc);
	run_free(&r);
}
END_TEST

/* A program whose samples all find it inside the C library (memset), so
 * that none may open libunwind before the profile is written at exit:
 * more than the 128 samples that can be kept come; each new one takes a
 * kept one's place at random, and the kept share all the periods — none
 * lost (dropping them would lose all but 128). */
START_TEST(kept_beyond_room_by_reservoir)
{
	char *argv[] = { helper("sm-unwinder"), "memset", "40000", NULL };
	struct run r;
	struct profile_doc doc;
	struct tree t;

	run_sampled("memset", argv, 1000, "cpu", NULL, 0, &r, &doc);
	tree_build(&t, &doc);
	struct agg fill = under(&t, "fill", "main", -1);
	uint64_t samples = meta_u64(&doc, "samples");
	uint64_t dropped = meta_u64(&doc, "samples_dropped_unwind");
	printf("memset: %" PRIu64 " samples, %" PRIu64 " under fill, %" PRIu64
	       " dropped\n",
	       samples, fill.samples, dropped);
	/* 40,000 MiB written: 0.4 s or more at 1000 Hz here. */
	SM_CHECK(samples >= 200 && dropped == 0,
		 "%" PRIu64 " samples, %" PRIu64 " dropped", samples, dropped);
	SM_CHECK(fill.samples >= samples * 9 / 10,
		 "%" PRIu64 " of %" PRIu64 " samples under fill: %s",
		 fill.samples, samples, top_paths(&t, 5));
	tree_free(&t);
	profile_doc_free(&doc);
	run_free(&r);
}
END_TEST

/* A program with an allocator of its own has libunwind opened at start:
 * its own code may be inside its allocator whenever a sample comes. */
START_TEST(opened_at_start_with_an_allocator_of_the_programs)
{
	char *argv[] = { helper("sm-own-malloc"), "0.3", NULL };
	struct run r;
	struct profile_doc doc;
	struct tree t;

	run_sampled("own-malloc", argv, 100, "cpu", NULL, 0, &r, &doc);
	SM_CHECK(!strcmp(r.out, "start yes\n"), "libunwind mapped %s", r.out);
	tree_build(&t, &doc);
	struct agg burn = under(&t, "burn", "main", -1);
	SM_CHECK(burn.samples >= 20, "%" PRIu64 " samples in burn: %s",
		 burn.samples, top_paths(&t, 5));
	tree_free(&t);
	profile_doc_free(&doc);
	run_free(&r);
}
END_TEST

/* A process that changes its root directory to one without libunwind
 * (as daemons do) has it opened first: its samples after are walked.
 * Run as root (CI is); elsewhere the program is refused and says so. */
START_TEST(opened_before_chroot)
{
	char *argv[] = { helper("sm-unwinder"), "chroot", "0.3", NULL };
	char *dir = make_dir("chroot");
	struct env env;
	struct run r;
	struct profile_doc doc;
	struct tree t;

	/* The profile's path, fixed at start, is looked for inside the new
	 * root: there it is. */
	char *inner = xasprintf("%s%s", dir, dir);
	char *mkdir_p[] = { "/bin/mkdir", "-p", inner, NULL };
	struct run made;
	run_in(dir, mkdir_p, NULL, SM_DEADLINE, &made);
	expect_status(&made, 0);
	run_free(&made);
	env_sampled(&env, dir, 100, "cpu");
	run_in(dir, argv, env.v, SM_DEADLINE, &r);
	expect_status(&r, 0);
	if (!strcmp(r.out, "chroot refused\n") && !getenv("CI")) {
		printf("chroot: not allowed here (not root): not checked\n");
	} else {
		SM_CHECK(!strcmp(r.out, "chroot ok\n"), "printed '%s'",
			 r.out);
		ck_assert_uint_eq(read_profiles(inner, &doc, 1), 1);
		tree_build(&t, &doc);
		struct agg burn = under(&t, "burn", "main", -1);
		printf("chroot: %" PRIu64 " samples in burn, %" PRIu64
		       " dropped\n",
		       burn.samples, meta_u64(&doc, "samples_dropped_unwind"));
		SM_CHECK(burn.samples >= 20, "%" PRIu64 " samples in burn: %s",
			 burn.samples, top_paths(&t, 5));
		tree_free(&t);
		profile_doc_free(&doc);
	}
	run_free(&r);
	env_free(&env);
	free(argv[0]);
	free(inner);
	free(dir);
}
END_TEST

/* With TRMS_INTERVAL the library starts a thread of its own (the windows'
 * writer) before the program's first sample: libunwind is opened before
 * it, and the program's one thread is sampled (whole-run profile). */
START_TEST(opened_before_the_window_writer)
{
	char *argv[] = { helper("sm-unwinder"), "maps", "0.3", NULL };
	char *dir = make_dir("interval");
	char *path = xasprintf("%s/whole.trms", dir);
	char *output = xasprintf("TRMS_OUTPUT=%s", path);
	char err[1024];
	struct env env;
	struct run r;
	struct profile_doc doc;
	struct tree t;

	env_sampled(&env, dir, 100, "cpu");
	for (size_t i = 0; i < env.n; i++)
		if (!strncmp(env.v[i], "TRMS_OUTPUT=", 12)) {
			free(env.v[i]);
			env.v[i] = output;
		}
	env_add(&env, xasprintf("TRMS_INTERVAL=1"));
	run_in(dir, argv, env.v, SM_DEADLINE, &r);
	expect_status(&r, 0);
	SM_CHECK(!strcmp(r.out, "start yes\nend yes\n"),
		 "libunwind mapped: %s", r.out);
	ck_assert_msg(profile_read(path, &doc, err, sizeof(err)) == 0,
		      "%s: %s", path, err);
	tree_build(&t, &doc);
	struct agg burn = under(&t, "burn", "main", -1);
	printf("interval: %" PRIu64 " samples in burn, %" PRIu64
	       " dropped\n",
	       burn.samples, meta_u64(&doc, "samples_dropped_unwind"));
	SM_CHECK(burn.samples >= 20 &&
			 meta_u64(&doc, "samples_dropped_unwind") == 0,
		 "%" PRIu64 " samples in burn, %" PRIu64 " dropped: %s",
		 burn.samples, meta_u64(&doc, "samples_dropped_unwind"),
		 top_paths(&t, 5));
	tree_free(&t);
	profile_doc_free(&doc);
	run_free(&r);
	env_free(&env);
	free(argv[0]);
	free(path);
	free(dir);
}
END_TEST

void add_unwinder_tests(const struct sampling_cases *c)
{
	tcase_add_test(c->unwinder, opened_at_the_first_sample);
	tcase_add_test(c->unwinder, kept_in_the_programs_handler);
	tcase_add_test(c->unwinder, not_opened_inside_malloc);
	tcase_add_test(c->unwinder, kept_beyond_room_by_reservoir);
	tcase_add_test(c->unwinder,
		       opened_at_start_with_an_allocator_of_the_programs);
	tcase_add_test(c->unwinder, opened_before_chroot);
	tcase_add_test(c->unwinder, opened_before_the_window_writer);
}
