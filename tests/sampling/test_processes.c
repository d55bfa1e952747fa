/*
 * test_processes.c - processes and threads: a plugin unloaded before
 * the profile is written keeps its name, one loaded and unloaded all day
 * does not grow the library's tables; fork while sampling, a process
 * that forks all the time, 500 threads come and gone.
 */
#define _GNU_SOURCE
#include "sampling.h"

#include "../scratch.h"

#include <inttypes.h>
#include <stdlib.h>
#include <unistd.h>

/* ======================================================================
 * 5. Samples in a plugin unloaded before the profile is written
 * ====================================================================== */

START_TEST(dlclosed_plugin_keeps_its_name)
{
	const unsigned hz = 1000;
	char *dir = make_dir("dlopen");
	/* A copy of the plugin, removed once the program has run: the
	 * name can come from the profile only. */
	char *copy = xasprintf("%s/libsm_plugin_copy.so", scratch);
	char *cp = xasprintf("cp '%s' '%s'", test_env("SM_PLUGIN"), copy);
	ck_assert_int_eq(system(cp), 0);
	char *argv[] = { helper("sm-dlopen"), copy, NULL };
	struct env env;
	struct run r;
	struct profile_doc doc;
	struct tree t;
	double plugin_cpu, after_cpu;
	char unloaded[8];

	env_sampled(&env, dir, hz, "cpu");
	run_in(dir, argv, env.v, SM_DEADLINE, &r);
	expect_status(&r, 0);
	SM_CHECK(sscanf(r.out, "plugin_cpu %lf after_cpu %lf unloaded %7s",
			     &plugin_cpu, &after_cpu, unloaded) == 3,
		      "sm-dlopen printed '%s'", r.out);
	SM_CHECK(!strcmp(unloaded, "yes"),
		      "expected the plugin to be unloaded by dlclose (the "
		      "test relies on it), but dlopen(RTLD_NOLOAD) still "
		      "found it");
	ck_assert_int_eq(unlink(copy), 0);
	ck_assert_uint_eq(read_profiles(dir, &doc, 1), 1);

	/* The module is listed, unloaded, and its function is named in the
	 * profile itself. */
	const struct profile_module *plugin = NULL;
	for (size_t i = 0; i < doc.n_modules; i++)
		if (strstr(doc.modules[i].path, "libsm_plugin_copy.so"))
			plugin = &doc.modules[i];
	SM_CHECK(plugin != NULL,
		      "expected a module line for %s in the profile", copy);
	SM_CHECK(plugin->unloaded,
		      "expected the module line of %s to say unloaded",
		      copy);
	bool named = false;
	for (size_t i = 0; i < doc.n_symbols; i++)
		if (doc.symbols[i].module == plugin->id &&
		    !strcmp(doc.symbols[i].name, "burn_in_plugin"))
			named = true;
	SM_CHECK(named,
		      "expected a symbol line naming burn_in_plugin in module "
		      "%" PRIu32 " (%s), there is none",
		      plugin->id, plugin->path);

	tree_build(&t, &doc);
	char *top = top_paths(&t, 8);
	struct agg in_plugin = under(&t, "burn_in_plugin", NULL, -1);
	struct agg after = under(&t, "after_plugin", NULL, -1);
	uint64_t total = samples_of(&t, -1);
	printf("dlopen: burn_in_plugin %" PRIu64 " of %" PRIu64
	       " samples (%.1f%%), after_plugin %" PRIu64
	       "; CPU %.3f s in the plugin, %.3f s after\n",
	       in_plugin.samples, total,
	       total ? 100.0 * (double)in_plugin.samples / (double)total : 0,
	       after.samples, plugin_cpu, after_cpu);
	SM_CHECK(total >= 0.6 * hz * (plugin_cpu + after_cpu),
		      "expected at least 60%% of %.0f samples, saw %" PRIu64,
		      hz * (plugin_cpu + after_cpu), total);
	SM_CHECK((double)in_plugin.samples >= 0.3 * (double)total,
		      "expected at least 30%% of the samples under "
		      "burn_in_plugin (it burnt %.3f s of %.3f s), saw %" PRIu64
		      " of %" PRIu64 "; heaviest paths:%s",
		      plugin_cpu, plugin_cpu + after_cpu, in_plugin.samples,
		      total, top);
	SM_CHECK((double)after.samples >= 0.3 * (double)total *
						       after_cpu /
						       (plugin_cpu + after_cpu),
		      "expected samples under after_plugin too, saw %" PRIu64
		      " of %" PRIu64 "; heaviest paths:%s",
		      after.samples, total, top);
	char *tree = report(dir, doc.path, "--tree", NULL, NULL);
	SM_CHECK(strstr(tree, "burn_in_plugin") != NULL,
		      "expected trms report --tree to show burn_in_plugin:\n%s",
		      tree);
	free(tree);
	free(top);
	tree_free(&t);
	profile_doc_free(&doc);
	run_free(&r);
	env_free(&env);
	free(argv[0]);
	free(cp);
	free(copy);
	free(dir);
}
END_TEST

/* A program that loads and unloads a plugin all day, sampled: the
 * library's table of modules must not grow with every load (measured
 * before the fix: 40 MiB of resident memory and 5,009 module lines after
 * 5,000 cycles). */
START_TEST(plugin_reloaded_many_times)
{
	const unsigned cycles = 5000;
	char *n = xasprintf("%u", cycles);
	char *argv[] = { helper("sm-dlopen"), (char *)test_env("SM_PLUGIN"), n,
			 NULL };
	struct run r;
	struct profile_doc doc;
	unsigned done;
	long growth_kib;

	run_sampled("reload", argv, 1000, "cpu", NULL, 0, &r, &doc);
	SM_CHECK(sscanf(r.out, "cycles %u rss_growth_kib %ld", &done,
			&growth_kib) == 2 && done == cycles,
		 "sm-dlopen printed '%s'", r.out);
	size_t plugin_lines = 0;
	for (size_t i = 0; i < doc.n_modules; i++)
		plugin_lines += strstr(doc.modules[i].path, "libsm_plugin") != NULL;
	printf("reload: %u cycles, resident set grew %ld KiB, %zu module "
	       "lines for the plugin\n",
	       cycles, growth_kib, plugin_lines);
	SM_CHECK(growth_kib < 8192,
		 "expected the resident set to grow by less than 8 MiB over "
		 "%u loads and unloads, it grew %ld KiB",
		 cycles, growth_kib);
	SM_CHECK(plugin_lines >= 1 && plugin_lines <= 10,
		 "expected the plugin loaded %u times at the same place to "
		 "have a module line or a few, saw %zu",
		 cycles, plugin_lines);
	profile_doc_free(&doc);
	run_free(&r);
	free(n);
}
END_TEST

/* ======================================================================
 * 6. fork in the middle of sampling; 500 threads
 * ====================================================================== */

/* The samples of the tree add up to the profile's count. */
static void expect_consistent(const struct tree *t)
{
	uint64_t meta = meta_u64(t->doc, "samples"), sum = samples_of(t, -1);

	SM_CHECK(meta == sum,
		      "%s: expected 'meta samples' to equal the samples of "
		      "its cct lines, saw %" PRIu64 " and %" PRIu64,
		      t->doc->path, meta, sum);
}

/* Every node labelled @label has @ancestor above it. */
static void expect_under(const struct tree *t, const char *label,
			 const char *ancestor)
{
	for (size_t i = 0; i < t->n; i++) {
		if (strcmp(t->label[i], label) || !t->samples[i])
			continue;
		char *p = path_of(t, i);
		SM_CHECK(has_ancestor(t, i, ancestor) &&
				      !strncmp(p, "(thread start);", 15),
			      "%s: expected %s below %s, in a path from "
			      "(thread start); saw %s",
			      t->doc->path, label, ancestor, p);
		free(p);
	}
}

START_TEST(fork_while_sampling)
{
	const unsigned hz = 1000;
	char *dir = make_dir("fork");
	char *argv[] = { helper("sm-fork"), "fork", NULL };
	struct env env;
	struct run r;
	struct profile_doc docs[3];
	struct tree parent, child;

	env_sampled(&env, dir, hz, "cpu");
	run_in(dir, argv, env.v, SM_DEADLINE, &r);
	expect_status(&r, 0);
	ck_assert_str_eq(r.out, "child ok\n");
	size_t n = read_profiles(dir, docs, 3);
	SM_CHECK(n == 2, "expected 2 profiles (parent and child), saw %zu",
		      n);
	struct profile_doc *p = &docs[0], *c = &docs[1];
	if (meta_u64(p, "ppid") == meta_u64(c, "pid")) {
		p = &docs[1];
		c = &docs[0];
	}
	SM_CHECK(meta_u64(c, "ppid") == meta_u64(p, "pid"),
		      "expected one profile to be the other's child");
	tree_build(&parent, p);
	tree_build(&child, c);
	char *ptop = top_paths(&parent, 8), *ctop = top_paths(&child, 8);
	expect_consistent(&parent);
	expect_consistent(&child);

	struct agg before = under(&parent, "before_fork", NULL, -1);
	struct agg pburn = under(&parent, "parent_burn", NULL, -1);
	struct agg comp = under(&parent, "companion_burn", NULL, -1);
	struct agg pchild = under(&parent, "child_burn", NULL, -1);
	struct agg cburn = under(&child, "child_burn", NULL, -1);
	struct agg cbefore = under(&child, "before_fork", NULL, -1);
	struct agg cparent = under(&child, "parent_burn", NULL, -1);
	struct agg ccomp = under(&child, "companion_burn", NULL, -1);
	printf("fork: parent before_fork %" PRIu64 " parent_burn %" PRIu64
	       " companion %" PRIu64 "; child child_burn %" PRIu64
	       " (of %" PRIu64 ")\n",
	       before.samples, pburn.samples, comp.samples, cburn.samples,
	       samples_of(&child, -1));
	SM_CHECK(before.samples >= 0.5 * hz * 0.4 &&
			      pburn.samples >= 0.5 * hz * 0.6 &&
			      comp.samples >= 100,
		      "expected the parent's profile to have at least %.0f "
		      "samples in before_fork, %.0f in parent_burn and 100 in "
		      "companion_burn, saw %" PRIu64 ", %" PRIu64 ", %" PRIu64
		      "; heaviest paths:%s",
		      0.5 * hz * 0.4, 0.5 * hz * 0.6, before.samples,
		      pburn.samples, comp.samples, ptop);
	SM_CHECK(pchild.samples == 0,
		      "expected no child_burn in the parent's profile, saw %" PRIu64,
		      pchild.samples);
	SM_CHECK(cburn.samples >= 0.5 * hz * 0.6,
		      "expected the child's profile to have at least %.0f "
		      "samples in child_burn, saw %" PRIu64 "; heaviest paths:%s",
		      0.5 * hz * 0.6, cburn.samples, ctop);
	SM_CHECK(cbefore.samples == 0 && cparent.samples == 0 &&
			      ccomp.samples == 0,
		      "expected the child's profile to start fresh at the "
		      "fork: no samples of before_fork, parent_burn or "
		      "companion_burn; saw %" PRIu64 ", %" PRIu64 ", %" PRIu64
		      "; heaviest paths:%s",
		      cbefore.samples, cparent.samples, ccomp.samples, ctop);
	SM_CHECK(c->n_threads == 1,
		      "expected 1 thread in the child's profile, saw %zu",
		      c->n_threads);
	SM_CHECK(p->n_threads == 2,
		      "expected 2 threads in the parent's profile, saw %zu",
		      p->n_threads);
	expect_under(&parent, "before_fork", "main");
	expect_under(&parent, "parent_burn", "main");
	expect_under(&parent, "companion_burn", "companion");
	expect_under(&child, "child_burn", "main");
	free(ptop);
	free(ctop);
	tree_free(&parent);
	tree_free(&child);
	profile_doc_free(&docs[0]);
	profile_doc_free(&docs[1]);
	run_free(&r);
	env_free(&env);
	free(argv[0]);
	free(dir);
}
END_TEST

/* The library's fork handlers are its own time: a process that forks all
 * the time has none of their frames in its tree, and its thread line
 * counts the samples that found it there. */
START_TEST(fork_handlers_are_library_time)
{
	static const char *const ours[] = {
		"after_fork_parent", "after_fork_child", "unlock_all",
		"urcu_bp_before_fork", "urcu_bp_after_fork_parent",
	};
	char *argv[] = { helper("sm-fork"), "forks", "400", NULL };
	struct run r;
	struct profile_doc doc;
	struct tree t;

	run_sampled("forks", argv, 1000, "cpu", NULL, 0, &r, &doc);
	ck_assert_str_eq(r.out, "forks 400\n");
	tree_build(&t, &doc);
	uint64_t library = 0;
	for (size_t i = 0; i < doc.n_threads; i++)
		library += doc.threads[i].library_samples;
	printf("forks: %" PRIu64 " samples in the tree, %" PRIu64
	       " inside the library\n",
	       meta_u64(&doc, "samples"), library);
	for (size_t i = 0; i < t.n; i++)
		for (size_t k = 0; k < sizeof(ours) / sizeof(ours[0]); k++)
			SM_CHECK(strcmp(t.label[i], ours[k]),
				 "%s: the library's %s is in the program's "
				 "tree (%" PRIu64 " samples under it)",
				 r.command, ours[k], t.samples[i]);
	tree_free(&t);
	profile_doc_free(&doc);
	run_free(&r);
}
END_TEST

START_TEST(five_hundred_threads)
{
	const unsigned hz = 1000;
	char *argv[] = { helper("sm-fork"), "threads", NULL };
	struct run r;
	struct profile_doc doc;
	struct tree t;

	run_sampled("threads", argv, hz, "cpu", NULL, 0, &r, &doc);
	ck_assert_str_eq(r.out, "threads 500\n");
	/* The main thread, the 256 that ended last and one that holds the
	 * 244 before them, their samples and paths added together
	 * (thread.c, "Threads that ended"). */
	SM_CHECK(doc.n_threads == 258,
		      "expected 258 threads in the profile, saw %zu",
		      doc.n_threads);
	unsigned folded = 0;
	for (size_t i = 0; i < doc.n_threads; i++) {
		const struct profile_thread *th = &doc.threads[i];
		if (th->ordinal == 0)
			continue;
		if (th->name && !strcmp(th->name, "ended threads") &&
		    th->ended_threads == 244) {
			folded++;
			SM_CHECK(th->samples > 0, "the folded threads have no "
				 "samples");
			continue;
		}
		SM_CHECK(th->has_creator && th->creator == 0,
			      "expected thread %" PRIu32 " created by thread 0",
			      th->ordinal);
	}
	SM_CHECK(folded == 1, "expected one thread \"ended threads\" of 244, "
		 "saw %u", folded);
	tree_build(&t, &doc);
	expect_consistent(&t);
	struct agg burn = under(&t, "thread_burn", NULL, -1);
	uint32_t sampled = 0;
	for (size_t i = 0; i < doc.n_threads; i++)
		sampled += under(&t, "thread_burn", NULL,
				 (long)doc.threads[i].ordinal).samples > 0;
	printf("threads: %" PRIu64 " samples in thread_burn (500 x 3 ms at "
	       "%u Hz), %" PRIu32 " of the profile's %zu threads sampled\n",
	       burn.samples, hz, sampled, doc.n_threads);
	SM_CHECK(burn.samples >= 0.3 * hz * 1.5,
		      "expected at least 30%% of %.0f samples in thread_burn "
		      "(500 threads x 3 ms at %u Hz), saw %" PRIu64,
		      hz * 1.5, hz, burn.samples);
	expect_under(&t, "thread_burn", "short_thread");
	expect_under(&t, "thread_burn", "run_threads");
	tree_free(&t);
	profile_doc_free(&doc);
	run_free(&r);
}
END_TEST

void add_process_tests(const struct sampling_cases *c)
{
	tcase_add_test(c->dlopen, dlclosed_plugin_keeps_its_name);
	tcase_add_test(c->dlopen, plugin_reloaded_many_times);
	tcase_add_test(c->fork, fork_while_sampling);
	tcase_add_test(c->fork, fork_handlers_are_library_time);
	tcase_add_test(c->threads, five_hundred_threads);
}
