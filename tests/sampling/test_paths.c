/*
 * test_paths.c - call paths: csprof's Figure 1 (work's samples split by its
 * callers, in the profile and in `trms report`), idleness (three threads
 * waiting while one works), every thread's tree rooted where it was
 * created, and sampling adding no I/O.
 */
#define _GNU_SOURCE
#include "sampling.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

/* ======================================================================
 * 1. csprof's Figure 1: work's samples split by caller
 * ====================================================================== */

/* In `trms report --folded` output: the samples of stacks in which
 * @caller calls work directly. */
static uint64_t folded_count(const char *folded, const char *caller)
{
	uint64_t sum = 0;
	char *copy = strdup(folded), *save = NULL;
	char *needle = xasprintf(";%s;work", caller);

	for (char *line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *blank = strrchr(line, ' ');
		if (!blank)
			continue;
		*blank = '\0';
		char *hit = strstr(line, needle);
		size_t nl = strlen(needle);
		if (hit && (hit[nl] == '\0' || hit[nl] == ';'))
			sum += strtoull(blank + 1, NULL, 10);
	}
	free(needle);
	free(copy);
	return sum;
}

/* In `trms report --tree --min 0` output: the subtree work of the nodes
 * "work" right under a node "@caller". */
static uint64_t tree_count(const char *text, const char *caller)
{
	char *copy = strdup(text), *save = NULL;
	char *stack[256] = { 0 };
	uint64_t sum = 0;

	for (char *line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		double percent, idle;
		unsigned long self, work, overhead, blocked;
		int pos = 0;
		if (sscanf(line, "%lf%% %lu %lu %lf %lu %lu%n", &percent,
			   &self, &work, &idle, &overhead, &blocked,
			   &pos) != 6)
			continue;
		const char *p = line + pos;
		size_t spaces = strspn(p, " ");
		if (spaces < 2)
			continue;
		size_t depth = (spaces - 2) / 2;
		if (depth >= 256)
			continue;
		stack[depth] = (char *)p + spaces;
		if (!strcmp(stack[depth], "work") && depth > 0 &&
		    stack[depth - 1] && !strcmp(stack[depth - 1], caller))
			sum += work;
		for (size_t d = depth + 1; d < 256 && stack[d]; d++)
			stack[d] = NULL;
	}
	free(copy);
	return sum;
}

/* The kernel's tick rate: the resolution of the coarse clocks is a tick. */
START_TEST(callers_split_work)
{
	const unsigned hz = 1000;
	const double expect_b = 0.80, tolerance = 0.10;
	char *dir = make_dir("callers");
	char *argv[] = { helper("sm-callers"), "1.2", NULL };
	struct env env;
	struct run r;
	struct profile_doc doc;
	struct tree t;
	double cpu_a, cpu_b;
	unsigned long rounds;

	env_sampled(&env, dir, hz, "cpu");
	run_in(dir, argv, env.v, SM_DEADLINE, &r);
	expect_status(&r, 0);
	SM_CHECK(sscanf(r.out, "rounds %lu cpu_a %lf cpu_b %lf", &rounds,
			     &cpu_a, &cpu_b) == 3,
		      "sm-callers printed '%s'", r.out);
	ck_assert_uint_eq(read_profiles(dir, &doc, 1), 1);
	tree_build(&t, &doc);

	struct agg a = under(&t, "work", "a", -1);
	struct agg b = under(&t, "work", "b", -1);
	char *top = top_paths(&t, 8);
	SM_CHECK(a.nodes >= 1 && b.nodes >= 1,
		      "expected 'work' as a node under 'a' and as another "
		      "under 'b'; saw %zu node(s) under a, %zu under b; "
		      "heaviest paths:%s",
		      a.nodes, b.nodes, top);
	double expected_samples = hz * (cpu_a + cpu_b);
	SM_CHECK((double)(a.samples + b.samples) >=
			      0.6 * expected_samples,
		      "expected at least 60%% of %.0f samples (%u Hz x %.2f s "
		      "of CPU in a and b) in work, saw %" PRIu64
		      " (a %" PRIu64 ", b %" PRIu64 "); heaviest paths:%s",
		      expected_samples, hz, cpu_a + cpu_b,
		      a.samples + b.samples, a.samples, b.samples, top);
	double share_b = (double)b.samples / (double)(a.samples + b.samples);
	printf("callers: work under a %" PRIu64 ", under b %" PRIu64
	       ": b's share %.1f%% (by design 80%%, by CPU time measured "
	       "%.1f%%)\n",
	       a.samples, b.samples, 100 * share_b,
	       100 * cpu_b / (cpu_a + cpu_b));
	SM_CHECK(fabs(share_b - expect_b) <= tolerance,
		      "expected b's share of work's samples to be %.0f%% +- "
		      "%.0f points (the program measured %.1f%% of the CPU "
		      "time in b), saw %.1f%% (a %" PRIu64 ", b %" PRIu64
		      "); heaviest paths:%s",
		      100 * expect_b, 100 * tolerance,
		      100 * cpu_b / (cpu_a + cpu_b), 100 * share_b, a.samples,
		      b.samples, top);

	/* trms report shows the same split, folded and as a tree. */
	char *folded = report(dir, doc.path, "--folded", NULL, NULL);
	uint64_t fa = folded_count(folded, "a"), fb = folded_count(folded, "b");
	SM_CHECK(fa == a.samples && fb == b.samples,
		      "expected trms report --folded to count %" PRIu64
		      " samples of a;work and %" PRIu64
		      " of b;work (as the profile's cct lines do), saw %" PRIu64
		      " and %" PRIu64 ":\n%s",
		      a.samples, b.samples, fa, fb, folded);
	char *tree = report(dir, doc.path, "--tree", "--min", "0");
	uint64_t ta = tree_count(tree, "a"), tb = tree_count(tree, "b");
	SM_CHECK(ta == a.work && tb == b.work,
		      "expected trms report --tree to show work %" PRIu64
		      " for a > work and %" PRIu64 " for b > work, saw %" PRIu64
		      " and %" PRIu64 ":\n%s",
		      a.work, b.work, ta, tb, tree);
	free(folded);
	free(tree);
	free(top);
	tree_free(&t);
	profile_doc_free(&doc);
	run_free(&r);
	env_free(&env);
	free(argv[0]);
	free(dir);
}
END_TEST

/* ======================================================================
 * 2. Idleness, and trees rooted at their creation context
 * ====================================================================== */

/* Whether the ';'-separated @frames are those of a thread being set up
 * or torn down, before or after its start function: unnamed places in
 * the C library, or in liburcu-bp (the library's RCU, whose destructor
 * of thread-specific data runs among the thread's own at its exit), and
 * at most a named function of theirs at the leaf (pthread_sigmask). */
static bool only_libc(const char *frames)
{
	for (const char *f = frames; *f; f = strchr(f, ';') ? strchr(f, ';') + 1
							    : f + strlen(f)) {
		bool leaf = !strchr(f, ';');
		if (strncmp(f, "libc.so.6+", 10) &&
		    strncmp(f, "liburcu-bp.so", 13) && !leaf)
			return false;
	}
	return true;
}

/* Every sampled path of thread @thread starts with the creator's frames
 * ... main;spawn_threads, then "(thread start)", then frames that include
 * @start_fn. */
static void expect_rooted(const struct tree *t, uint32_t thread,
			  const char *start_fn)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct profile_cct *c = &t->doc->cct[i];
		if (c->thread != thread || !c->samples)
			continue;
		char *p = path_of(t, i);
		const char *creator = strstr(p, ";main;spawn_threads;(thread start);");
		SM_CHECK(creator != NULL,
			      "expected every path of thread %" PRIu32
			      " to start with its creator's frames "
			      "...;main;spawn_threads then (thread start); saw "
			      "%s (%" PRIu64 " samples)",
			      thread, p, c->samples);
		SM_CHECK(!strncmp(p, "(thread start);", 15),
			      "expected the creation context of thread %" PRIu32
			      " to begin where thread 0's paths begin, at "
			      "(thread start); saw %s",
			      thread, p);
		SM_CHECK(strstr(creator, start_fn) != NULL ||
				 only_libc(strstr(creator, "(thread start);") +
					   15),
			      "expected thread %" PRIu32
			      "'s own frames, below (thread start), to "
			      "include %s (or be the C library's thread start "
			      "or exit alone); saw %s",
			      thread, start_fn, p);
		free(p);
	}
}

static void idleness_run(const char *clock)
{
	const unsigned hz = 1000;
	char *argv[] = { helper("sm-idle"), NULL };
	struct run r;
	struct profile_doc doc;
	struct tree t;

	run_sampled(clock, argv, hz, clock, NULL, 0, &r, &doc);
	tree_build(&t, &doc);
	char *top = top_paths(&t, 12);

	/* Threads 1 and 2 wait, 3 works; main created them all. */
	SM_CHECK(doc.n_threads == 4,
		      "expected 4 threads in the profile, saw %zu",
		      doc.n_threads);
	const struct profile_thread *main_thread = profile_thread(&doc, 0);
	SM_CHECK(main_thread && !main_thread->has_creator,
		      "expected thread 0 without a creator");
	for (uint32_t i = 1; i <= 3; i++) {
		const struct profile_thread *th = profile_thread(&doc, i);
		SM_CHECK(th != NULL, "expected a thread line for thread "
					  "%" PRIu32 ", there is none", i);
		SM_CHECK(th->has_creator && th->creator == 0,
			      "expected thread %" PRIu32 " with creator=0 in "
			      "its thread line, saw %s %" PRIu32,
			      i, th->has_creator ? "creator=" : "no creator",
			      th->has_creator ? th->creator : 0);
	}

	/* Main's paths start at its own (thread start), and never pass
	 * another. */
	for (size_t i = 0; i < t.n; i++) {
		if (doc.cct[i].thread != 0 || !doc.cct[i].samples)
			continue;
		char *p = path_of(&t, i);
		SM_CHECK(!strncmp(p, "(thread start);", 15) &&
				      !strstr(p + 15, "(thread start)"),
			      "expected thread 0's paths to start with one "
			      "(thread start) and no other; saw %s",
			      p);
		free(p);
	}
	expect_rooted(&t, 1, ";waiter_main;");
	expect_rooted(&t, 2, ";waiter_main;");
	expect_rooted(&t, 3, ";worker_main;");
	for (uint32_t i = 1; i <= 2; i++) {
		struct agg w = under(&t, "warm_up", NULL, i);
		SM_CHECK(w.samples >= 0.5 * hz * 0.15,
			      "expected at least half of %.0f samples (%u Hz x "
			      "0.15 s) in thread %" PRIu32 "'s warm_up, saw %" PRIu64
			      "; heaviest paths:%s",
			      hz * 0.15, hz, i, w.samples, top);
	}

	/* One thread works, three are blocked: 3 of idleness per sample of
	 * work. */
	struct agg w = under(&t, "burn_while_others_wait", NULL, -1);
	SM_CHECK(w.work >= 0.5 * hz * 1.0,
		      "TRMS_SAMPLE_CLOCK=%s: expected at least %.0f samples of "
		      "work (half of %u Hz x 1 s) in burn_while_others_wait, saw "
		      "%" PRIu64 " (samples %" PRIu64 ", blocked %" PRIu64
		      "); heaviest paths:%s",
		      clock, 0.5 * hz, hz, w.work, w.samples, w.blocked, top);
	double ratio = w.idleness / (double)w.work;
	printf("idleness (%s): burn_while_others_wait work %" PRIu64
	       " idleness %.1f: %.3f per sample of work\n",
	       clock, w.work, w.idleness, ratio);
	for (uint32_t i = 0; i <= 2; i++) {
		struct agg wait = under(&t, "wait_until_done", NULL, i);
		printf("idleness (%s): thread %" PRIu32 " wait_until_done: "
		       "%" PRIu64 " samples, %" PRIu64 " blocked, %" PRIu64
		       " work\n",
		       clock, i, wait.samples, wait.blocked, wait.work);
	}
	SM_CHECK(fabs(ratio - 3.0) <= 0.15 * 3.0,
		      "TRMS_SAMPLE_CLOCK=%s: expected the idleness of "
		      "burn_while_others_wait to be 3 x its work +- 15%% (three "
		      "threads in pthread_cond_wait, one working), saw "
		      "idleness %.1f for work %" PRIu64 " (%.3f x); heaviest "
		      "paths:%s",
		      clock, w.idleness, w.work, ratio, top);

	if (!strcmp(clock, "wall")) {
		/* A thread's wall-clock samples while it waits count as
		 * blocked time, not as work. */
		for (uint32_t i = 0; i <= 2; i++) {
			struct agg wait = under(&t, "wait_until_done", NULL, i);
			SM_CHECK(wait.samples >= 0.5 * hz * 1.0 &&
					      (double)wait.blocked >=
						      0.9 * (double)wait.samples,
				      "TRMS_SAMPLE_CLOCK=wall: expected thread %" PRIu32
				      " to have at least %.0f samples in "
				      "wait_until_done (it waits there > 1 s), at "
				      "least 90%% of them blocked; saw %" PRIu64
				      " samples, %" PRIu64 " blocked, %" PRIu64
				      " work; heaviest paths:%s",
				      i, 0.5 * hz, wait.samples, wait.blocked,
				      wait.work, top);
		}
	}
	free(top);
	tree_free(&t);
	profile_doc_free(&doc);
	run_free(&r);
}

START_TEST(idleness_cpu_clock)
{
	idleness_run("cpu");
}
END_TEST

START_TEST(idleness_wall_clock)
{
	idleness_run("wall");
}
END_TEST

/* Sampling is invisible in the rest of the profile: sm-idle does no I/O,
 * so no thread has bytes or calls in or out. */
START_TEST(sampling_adds_no_io)
{
	static const char *const clocks[] = { "cpu", "wall" };

	for (size_t k = 0; k < 2; k++) {
		char *argv[] = { helper("sm-idle"), NULL };
		struct run r;
		struct profile_doc doc;

		run_sampled(clocks[k], argv, 1000, clocks[k], NULL, 0, &r,
			    &doc);
		ck_assert_uint_gt(meta_u64(&doc, "samples"), 0);
		for (size_t i = 0; i < doc.n_threads; i++) {
			const struct profile_thread *th = &doc.threads[i];
			SM_CHECK(th->in_calls == 0 && th->in_bytes == 0 &&
					      th->out_calls == 0 &&
					      th->out_bytes == 0,
				      "TRMS_SAMPLE_CLOCK=%s: sm-idle does no "
				      "I/O: expected thread %" PRIu32
				      " with in_bytes=0 in_calls=0 "
				      "out_bytes=0 out_calls=0, saw "
				      "in_bytes=%" PRIu64 " in_calls=%" PRIu64
				      " out_bytes=%" PRIu64 " out_calls=%" PRIu64,
				      clocks[k], th->ordinal, th->in_bytes,
				      th->in_calls, th->out_bytes, th->out_calls);
		}
		profile_doc_free(&doc);
		run_free(&r);
	}
}
END_TEST

void add_path_tests(const struct sampling_cases *c)
{
	tcase_add_test(c->callers, callers_split_work);
	tcase_add_test(c->idleness, idleness_cpu_clock);
	tcase_add_test(c->idleness, idleness_wall_clock);
	tcase_add_test(c->no_phantom_io, sampling_adds_no_io);
}
