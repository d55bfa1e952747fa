/*
 * test_algebra.c - `trms merge` is associative and commutative, byte for
 * byte: on random hand-written profiles (named and unnamed threads,
 * regions and modules numbered differently in each file, modules loaded
 * twice, symbols, call trees) and on profiles of random traces from `trms
 * replay --profile`: merge(a, merge(b, c)) = merge(merge(a, b), c) =
 * merge(a, b, c) = merge(c, a, b), merging a merged file once more
 * changes nothing (version 1 and 3 files mixed: the correction's sums of
 * version 3 tuples add up like the others), and `trms report` (tuples, tree, folded stacks,
 * summary) of the merged file is `trms report` of the inputs.
 */
#define _GNU_SOURCE
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merging.h"
#include "suite_main.h"
#include "test_util.h"
#include "trace_gen.h"

static const char *const region_pool[] = { "parse", "sort", "emit",
					   "a%20b", "%25x", "z" };
static const char *const name_pool[] = { "worker", "io", "main%20loop" };
static const char *const module_pool[] = {
	"/nonexistent/bin/app", "/nonexistent/lib/libfoo.so",
	"/nonexistent/lib/libc.so.6", "[vdso]",
};
static const uint64_t offsets[] = { 16, 32, 48 };

#define POOL(a) (sizeof(a) / sizeof((a)[0]))

/* The name of the function at @offset of module @path, the same in every
 * profile (or none). */
static bool function_at(size_t path, uint64_t offset, char *buf, size_t len)
{
	if ((offset / 16 + path) % 3 == 0)
		return false;
	snprintf(buf, len, "fn_%zu_%" PRIu64, path, offset);
	return true;
}

/* Distinct numbers: @n of them, from [0, 3n), shuffled. */
static void distinct_ids(uint64_t *state, uint32_t *ids, size_t n)
{
	uint32_t all[64];
	size_t span = 3 * n;

	ck_assert(span <= 64);
	for (size_t i = 0; i < span; i++)
		all[i] = (uint32_t)i;
	for (size_t i = 0; i < span; i++) {
		size_t j = i + gen_below(state, span - i);
		uint32_t t = all[i];
		all[i] = all[j];
		all[j] = t;
	}
	memcpy(ids, all, n * sizeof(*ids));
}

static void random_tree(FILE *f, uint64_t *s, uint32_t thread,
			const uint32_t *regions, size_t n_regions,
			const uint32_t *modules, size_t n_modules)
{
	size_t n = 1 + gen_below(s, 12);
	uint32_t ids[16];
	uint32_t id = (uint32_t)gen_below(s, 5);

	for (size_t i = 0; i < n; i++) {
		ids[i] = id;
		id += 1 + (uint32_t)gen_below(s, 3);
		fprintf(f, "cct %" PRIu32 " %" PRIu32, thread, ids[i]);
		if (i == 0 || gen_below(s, 5) == 0)
			fputs(" -", f);
		else
			fprintf(f, " %" PRIu32, ids[gen_below(s, i)]);
		uint64_t kind = gen_below(s, 20);
		if (kind < 12 && n_modules) {
			uint32_t module = gen_below(s, 10)
						  ? modules[gen_below(s, n_modules)]
						  : 16777215;
			fprintf(f, " frame %" PRIu32 " %" PRIu64, module,
				offsets[gen_below(s, POOL(offsets))]);
		} else if (kind < 17) {
			fprintf(f, " region %" PRIu32 " 0",
				regions[gen_below(s, n_regions)]);
		} else {
			fputs(" thread 0 0", f);
		}
		uint64_t samples = gen_below(s, 5);
		uint64_t work = gen_below(s, samples + 1);
		fprintf(f,
			" %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
			" %" PRIu64 "\n",
			samples, work, 100000 * gen_below(s, 5),
			gen_below(s, work + 1), samples - work);
	}
}

/* A random profile in the documented format, as a process could have
 * written it: named and unnamed threads, ids in any order. */
static void random_profile(const char *path, uint64_t seed)
{
	uint64_t s = seed;
	FILE *f = fopen(path, "w");
	uint32_t region_ids[POOL(region_pool)], regions[POOL(region_pool)];
	size_t n_regions = 0;
	uint32_t ordinals[8];
	size_t n_threads = 1 + gen_below(&s, 4);
	uint32_t module_ids[2 * POOL(module_pool)], modules[2 * POOL(module_pool)];
	size_t module_path[2 * POOL(module_pool)], n_modules = 0;
	size_t tuples = gen_below(&s, 10);
	bool corrections = gen_below(&s, 2);

	ck_assert_ptr_nonnull(f);
	fprintf(f, "trms-profile %d\nmeta program app\nmeta pid %" PRIu64
		   "\nmeta start_ns %" PRIu64 "\nmeta end_ns %" PRIu64 "\n"
		   "meta cost events\nmeta granularity 4\n"
		   "meta sample_clock cpu\nmeta sample_hz 100\n"
		   "meta samples %" PRIu64 "\nmeta sample_cpu_ns %" PRIu64 "\n"
		   "meta samples_dropped_unwind %" PRIu64 "\n",
		corrections ? 3 : 1, 1000 + gen_below(&s, 1000), 1000 + gen_below(&s, 1000),
		5000 + gen_below(&s, 1000), gen_below(&s, 100),
		1 + gen_below(&s, 1000000000), gen_below(&s, 3));

	distinct_ids(&s, region_ids, POOL(region_pool));
	for (size_t i = 0; i < POOL(region_pool); i++) {
		if (gen_below(&s, 3) == 0 && !(i == 0 && n_regions == 0))
			continue;
		regions[n_regions++] = region_ids[i];
		fprintf(f, "region %" PRIu32 " %s\n", region_ids[i],
			region_pool[i]);
	}

	distinct_ids(&s, ordinals, n_threads);
	for (size_t i = 0; i < n_threads; i++) {
		fprintf(f, "thread %" PRIu32, ordinals[i]);
		if (gen_below(&s, 2))
			fprintf(f, " name=%s",
				name_pool[gen_below(&s, POOL(name_pool))]);
		if (gen_below(&s, 2))
			fprintf(f, " creator=%" PRIu32,
				ordinals[gen_below(&s, n_threads)]);
		if (gen_below(&s, 3) == 0) {
			fprintf(f, " context=%" PRIu32,
				regions[gen_below(&s, n_regions)]);
			if (gen_below(&s, 2))
				fprintf(f, "/%" PRIu32,
					regions[gen_below(&s, n_regions)]);
		}
		fprintf(f,
			" in_bytes=%" PRIu64 " in_calls=%" PRIu64
			" out_bytes=%" PRIu64 " out_calls=%" PRIu64,
			gen_below(&s, 100), gen_below(&s, 5), gen_below(&s, 100),
			gen_below(&s, 5));
		if (gen_below(&s, 4))
			fprintf(f, " samples=%" PRIu64 " cpu_ns=%" PRIu64,
				gen_below(&s, 50), gen_below(&s, 1000000));
		fputc('\n', f);
	}

	for (size_t i = 0; i < tuples; i++) {
		uint64_t count = 1 + gen_below(&s, 3);
		uint64_t min = gen_below(&s, 10), max = min + gen_below(&s, 10);
		fprintf(f,
			"tuple %" PRIu32 " %" PRIu32 " %s %" PRIu64 " %" PRIu64
			" %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
			" %" PRIu64 " %" PRIu64,
			regions[gen_below(&s, n_regions)],
			ordinals[gen_below(&s, n_threads)],
			gen_below(&s, 2) ? "trms" : "rms", gen_below(&s, 4),
			count, min, max, count * min + gen_below(&s, 20),
			gen_below(&s, 1000), gen_below(&s, 5),
			gen_below(&s, 5));
		if (corrections) {
			uint64_t corrected = gen_below(&s, count + 1);
			uint64_t library = corrected ? gen_below(&s, 500) : 0;
			fprintf(f, " %" PRIu64 " %" PRIu64 " %" PRIu64,
				corrected, library,
				gen_below(&s, library + 1));
		}
		fputc('\n', f);
	}

	distinct_ids(&s, module_ids, 2 * POOL(module_pool));
	for (size_t i = 0; i < POOL(module_pool); i++) {
		/* Absent, loaded once, or loaded twice (a new id). */
		for (uint64_t k = gen_below(&s, 3); k > 0; k--) {
			uint64_t start = 4096 * (1 + gen_below(&s, 1000));
			module_path[n_modules] = i;
			modules[n_modules] = module_ids[n_modules];
			fprintf(f,
				"module %" PRIu32 " %" PRIu64 " %" PRIu64
				" %" PRIu64 " %s %s\n",
				modules[n_modules], start, start + 8192,
				start - 4096,
				gen_below(&s, 2) ? "loaded" : "unloaded",
				module_pool[i]);
			n_modules++;
		}
	}
	for (size_t m = 0; m < n_modules; m++)
		for (size_t k = 0; k < POOL(offsets); k++) {
			char name[64];
			if (function_at(module_path[m], offsets[k], name,
					sizeof(name)))
				fprintf(f, "symbol %" PRIu32 " %" PRIu64
					   " %s %" PRIu64 "\n",
					modules[m], offsets[k], name,
					offsets[k] % 7);
		}
	for (size_t i = 0; i < n_threads; i++)
		if (gen_below(&s, 4))
			random_tree(f, &s, ordinals[i], regions, n_regions,
				    modules, n_modules);
	fprintf(f, "meta tuples_dropped %" PRIu64 "\nend %zu\n",
		gen_below(&s, 2), tuples);
	ck_assert_int_eq(fclose(f), 0);
}

/* What `trms report` of the merged file and of the inputs must share. */
static void assert_same_reports(const char *merged,
				const char *const *inputs, size_t n)
{
	static const char *const options[] = { "--tuples", "--tree",
					       "--folded", NULL };
	const char *one[] = { merged };

	for (size_t i = 0; i < POOL(options); i++) {
		char *x = report(options[i], one, 1);
		char *y = report(options[i], inputs, n);
		ck_assert_msg(!strcmp(x, y),
			      "report %s differs: merged\n%s\n---\ninputs\n%s",
			      options[i] ? options[i] : "", x, y);
		free(x);
		free(y);
	}
}

/* The algebra on the profiles a, b and c. */
static void check_algebra(const char *a, const char *b, const char *c)
{
	const char *abc_in[] = { a, b, c }, *cab_in[] = { c, a, b };
	const char *bca_in[] = { b, c, a }, *ab_in[] = { a, b };
	const char *bc_in[] = { b, c };
	const char *abc = in_scratch("abc.m"), *cab = in_scratch("cab.m");
	const char *bca = in_scratch("bca.m"), *ab = in_scratch("ab.m");
	const char *bc = in_scratch("bc.m");
	const char *a_bc = in_scratch("a_bc.m"), *ab_c = in_scratch("ab_c.m");
	const char *again = in_scratch("again.m");

	merge(abc, abc_in, 3);
	merge(cab, cab_in, 3);
	merge(bca, bca_in, 3);
	merge(ab, ab_in, 2);
	merge(bc, bc_in, 2);
	const char *a_bc_in[] = { a, bc }, *ab_c_in[] = { ab, c };
	merge(a_bc, a_bc_in, 2);
	merge(ab_c, ab_c_in, 2);
	const char *abc_alone[] = { abc };
	merge(again, abc_alone, 1);
	assert_same_file(abc, cab);
	assert_same_file(abc, bca);
	assert_same_file(abc, a_bc);
	assert_same_file(abc, ab_c);
	assert_same_file(abc, again);
	char *text = read_file(abc);
	ck_assert(strstr(text, "\nmeta merged 3\n") != NULL);
	free(text);
	assert_same_reports(abc, abc_in, 3);
}

START_TEST(algebra_random_profiles)
{
	uint64_t seed = 1000 + 17 * (uint64_t)_i;
	const char *a = in_scratch("a.trms"), *b = in_scratch("b.trms");
	const char *c = in_scratch("c.trms");

	random_profile(a, seed);
	random_profile(b, seed + 1);
	random_profile(c, seed + 2);
	check_algebra(a, b, c);
}
END_TEST

/* Profiles of random traces, written by `trms replay --profile`. */
START_TEST(algebra_replay_profiles)
{
	const char *profiles[3];
	char name[64];

	for (int i = 0; i < 3; i++) {
		struct trace t;
		struct gen_params p = {
			.threads = 1 + (unsigned)((_i + i) % 3),
			.max_depth = 4,
			.events = 300,
			.addr_base = 0,
			.addr_span = 256,
			.max_size = 16,
			.names = 4,
			.run_length = 8,
		};
		trace_init(&t);
		gen_trace(&t, &p, 7000 + 31 * (uint64_t)_i + (uint64_t)i);
		snprintf(name, sizeof(name), "t%d.trace", i);
		const char *trace = in_scratch(name);
		FILE *f = fopen(trace, "w");
		ck_assert_ptr_nonnull(f);
		trace_write(f, &t);
		ck_assert_int_eq(fclose(f), 0);
		trace_free(&t);
		snprintf(name, sizeof(name), "p%d.trms", i);
		profiles[i] = in_scratch(name);
		struct spawn_result r;
		run(&r, "replay", "--profile", profiles[i], trace, NULL);
		ck_assert_msg(r.status == 0, "replay: %s", r.err);
		spawn_free(&r);
	}
	check_algebra(profiles[0], profiles[1], profiles[2]);
}
END_TEST

void add_algebra_tests(Suite *s)
{
	TCase *tc = suite_case(s, "algebra", 120, merge_setup, merge_teardown);

	tcase_add_loop_test(tc, algebra_random_profiles, 0, 12);
	tcase_add_loop_test(tc, algebra_replay_profiles, 0, 3);
}
