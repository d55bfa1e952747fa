/*
 * test_merge.c - `trms merge` (tools/cmd_merge.c) and the merge itself
 * (tools/profile_merge*.c):
 *
 *   golden        a small case merged by hand: the whole output file,
 *                 also with an input read from a pipe
 *   semantics     thread identity, creator and context agreement, meta
 *                 rules, through profile_merge() itself
 *   algebra       on random hand-written profiles (named and unnamed
 *                 threads, regions and modules numbered differently in
 *                 each file, modules loaded twice, symbols, call trees)
 *                 and on profiles of random traces from `trms replay
 *                 --profile`: merge(a, merge(b, c)) = merge(merge(a, b),
 *                 c) = merge(a, b, c) = merge(c, a, b) byte for byte,
 *                 merging a merged file once more changes nothing, and
 *                 `trms report` (tuples, tree, folded stacks, summary) of
 *                 the merged file is `trms report` of the inputs
 *   errors        incompatible inputs, unreadable and corrupt ones, an
 *                 output that cannot be written, bad usage
 */
#define _GNU_SOURCE
#include <check.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile_merge.h"
#include "scratch.h"
#include "spawn.h"
#include "suite_main.h"
#include "test_util.h"
#include "trace_gen.h"

static char scratch[256];

static void setup(void)
{
	scratch_make(scratch, sizeof(scratch), "merge");
	ck_assert_int_eq(chdir(scratch), 0);
}

static void teardown(void)
{
	ck_assert(scratch_remove(scratch));
}

/* A path in the scratch directory (one of a few rotating buffers). */
static const char *in_scratch(const char *name)
{
	static char paths[32][512];
	static unsigned next;
	char *p = paths[next++ % 32];

	snprintf(p, sizeof(paths[0]), "%s/%s", scratch, name);
	return p;
}

static const char *write_file(const char *name, const char *text)
{
	const char *path = in_scratch(name);

	file_write(path, text);
	return path;
}

/* The whole of @path, which must exist. */
static char *read_file(const char *path)
{
	char *text = file_read(path);

	ck_assert_msg(text != NULL, "cannot open %s", path);
	return text;
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Run trms with the NULL-terminated arguments. */
static void run(struct spawn_result *r, ...)
{
	char *argv[32];
	size_t n = 0;
	va_list ap;

	argv[n++] = (char *)test_env("TRMS_BIN");
	va_start(ap, r);
	for (char *arg; (arg = va_arg(ap, char *));) {
		ck_assert(n < 31);
		argv[n++] = arg;
	}
	va_end(ap);
	argv[n] = NULL;
	spawn(argv, NULL, NULL, r);
}

/* trms merge -o OUT INPUT...; it must succeed. */
static void merge(const char *out, const char *const *inputs, size_t n)
{
	char *argv[32];
	size_t k = 0;
	struct spawn_result r;

	argv[k++] = (char *)test_env("TRMS_BIN");
	argv[k++] = "merge";
	argv[k++] = "-o";
	argv[k++] = (char *)out;
	for (size_t i = 0; i < n; i++)
		argv[k++] = (char *)inputs[i];
	argv[k] = NULL;
	spawn(argv, NULL, NULL, &r);
	ck_assert_msg(r.status == 0, "merge into %s: exit %d: %s", out,
		      r.status, r.err);
	ck_assert_str_eq(r.out, "");
	ck_assert_str_eq(r.err, "");
	spawn_free(&r);
}

/* What `trms report OPTION INPUT...` prints (OPTION may be NULL). */
static char *report(const char *option, const char *const *inputs,
		    size_t n)
{
	char *argv[32];
	size_t k = 0;
	struct spawn_result r;

	argv[k++] = (char *)test_env("TRMS_BIN");
	argv[k++] = "report";
	if (option)
		argv[k++] = (char *)option;
	for (size_t i = 0; i < n; i++)
		argv[k++] = (char *)inputs[i];
	argv[k] = NULL;
	spawn(argv, NULL, NULL, &r);
	ck_assert_msg(r.status == 0, "report %s: exit %d: %s",
		      option ? option : "", r.status, r.err);
	char *out = r.out;
	r.out = NULL;
	spawn_free(&r);
	return out;
}

static void assert_same_file(const char *x, const char *y)
{
	char *a = read_file(x), *b = read_file(y);

	ck_assert_msg(!strcmp(a, b), "%s and %s differ:\n%s\n---\n%s", x, y,
		      a, b);
	free(a);
	free(b);
}

/* --- golden: a small case merged by hand ------------------------------ */

static const char golden_a[] =
	"trms-profile 1\n"
	"meta program app\n"
	"meta pid 100\n"
	"meta start_ns 5000\n"
	"meta end_ns 9000\n"
	"meta cost events\n"
	"meta granularity 4\n"
	"meta sample_clock cpu\n"
	"meta sample_hz 100\n"
	"meta samples 6\n"
	"meta sample_cpu_ns 40000000\n"
	"meta sample_hz_delivered 150\n"
	"region 0 parse\n"
	"region 1 sort\n"
	"thread 0 in_bytes=10 in_calls=1 out_bytes=0 out_calls=0 samples=2 "
	"cpu_ns=10000000 library_samples=1 library_ns=700\n"
	"thread 1 name=worker creator=0 context=0 in_bytes=0 in_calls=0 "
	"out_bytes=5 out_calls=1 samples=4 cpu_ns=30000000 library_samples=0 "
	"library_ns=300\n"
	"tuple 0 0 trms 8 2 3 5 8 34 1 2\n"
	"tuple 0 0 rms 8 2 3 5 8 34 0 0\n"
	"tuple 1 1 trms 16 1 7 7 7 49 0 0\n"
	"module 0 4096 8192 0 loaded /nonexistent/bin/app\n"
	"module 1 65536 131072 61440 unloaded /nonexistent/lib/libfoo.so\n"
	"symbol 0 100 main 4\n"
	"symbol 1 300 foo_sort 0\n"
	"cct 0 1 - thread 0 0 0 0 0 0 0\n"
	"cct 0 2 1 frame 0 100 2 2 0 0 0\n"
	"cct 1 5 - region 0 0 0 0 0 0 0\n"
	"cct 1 6 5 thread 0 0 0 0 0 0 0\n"
	"cct 1 7 6 frame 1 300 4 3 500000 1 0\n"
	"meta tuples_dropped 1\n"
	"end 3\n";

/* Another process: regions, threads and modules numbered otherwise. */
static const char golden_b[] =
	"trms-profile 1\n"
	"meta program app\n"
	"meta pid 200\n"
	"meta start_ns 4000\n"
	"meta end_ns 8000\n"
	"meta cost events\n"
	"meta granularity 4\n"
	"meta sample_clock cpu\n"
	"meta sample_hz 100\n"
	"meta samples 3\n"
	"meta sample_cpu_ns 20000000\n"
	"region 0 sort\n"
	"region 1 emit\n"
	"region 2 parse\n"
	"thread 0 in_bytes=1 in_calls=1 out_bytes=2 out_calls=2 samples=1 "
	"cpu_ns=5000000 library_samples=2 library_ns=50\n"
	"thread 1 name=io in_bytes=0 in_calls=0 out_bytes=0 out_calls=0 "
	"samples=0 cpu_ns=0 library_samples=0 library_ns=0\n"
	"thread 2 name=worker creator=0 context=2 in_bytes=3 in_calls=3 "
	"out_bytes=0 out_calls=0 samples=2 cpu_ns=15000000 library_samples=3 "
	"library_ns=1000\n"
	"tuple 2 0 trms 8 1 1 1 1 1 0 1\n"
	"tuple 2 0 trms 9 1 4 4 4 16 0 0\n"
	"tuple 0 2 trms 16 3 2 9 15 90 2 0\n"
	"tuple 1 1 rms 0 1 6 6 6 36 0 0\n"
	"module 3 65536 131072 61440 loaded /nonexistent/lib/libfoo.so\n"
	"module 4 4096 8192 0 loaded /nonexistent/bin/app\n"
	"symbol 3 300 foo_sort 0\n"
	"symbol 4 100 main 4\n"
	"cct 0 1 - thread 0 0 0 0 0 0 0\n"
	"cct 0 2 1 frame 4 100 1 1 0 0 0\n"
	"cct 2 1 - region 2 0 0 0 0 0 0\n"
	"cct 2 2 1 thread 0 0 0 0 0 0 0\n"
	"cct 2 3 2 frame 3 300 1 1 250000 0 0\n"
	"cct 2 4 2 frame 16777215 4660 1 1 0 0 0\n"
	"end 4\n";

/* Worked out by hand from golden_a and golden_b. */
static const char golden_merged[] =
	"trms-profile 1\n"
	"meta cost events\n"
	"meta end_ns 9000\n"
	"meta granularity 4\n"
	"meta merged 2\n"
	"meta program app\n"
	"meta sample_clock cpu\n"
	"meta sample_cpu_ns 60000000\n"
	"meta sample_hz 100\n"
	"meta sample_hz_delivered 150\n"
	"meta samples 9\n"
	"meta start_ns 4000\n"
	"meta tuples_dropped 1\n"
	"region 0 emit\n"
	"region 1 parse\n"
	"region 2 sort\n"
	"thread 0 in_bytes=11 in_calls=2 out_bytes=2 out_calls=2 samples=3 "
	"cpu_ns=15000000 library_samples=3 library_ns=750\n"
	"thread 1 name=io in_bytes=0 in_calls=0 out_bytes=0 out_calls=0 "
	"samples=0 cpu_ns=0 library_samples=0 library_ns=0\n"
	"thread 2 name=worker creator=0 context=1 in_bytes=3 in_calls=3 "
	"out_bytes=5 out_calls=1 samples=6 cpu_ns=45000000 library_samples=3 "
	"library_ns=1300\n"
	"tuple 0 1 rms 0 1 6 6 6 36 0 0\n"
	"tuple 1 0 trms 8 3 1 5 9 35 1 3\n"
	"tuple 1 0 trms 9 1 4 4 4 16 0 0\n"
	"tuple 1 0 rms 8 2 3 5 8 34 0 0\n"
	"tuple 2 2 trms 16 4 2 9 22 139 2 0\n"
	"module 0 4096 8192 0 loaded /nonexistent/bin/app\n"
	"module 1 65536 131072 61440 loaded /nonexistent/lib/libfoo.so\n"
	"symbol 0 100 main 4\n"
	"symbol 1 300 foo_sort 0\n"
	"cct 0 1 - thread 0 0 0 0 0 0 0\n"
	"cct 0 2 1 frame 0 100 3 3 0 0 0\n"
	"cct 2 1 - region 1 0 0 0 0 0 0\n"
	"cct 2 2 1 thread 0 0 0 0 0 0 0\n"
	"cct 2 3 2 frame 1 300 5 4 750000 1 0\n"
	"cct 2 4 2 frame 16777215 4660 1 1 0 0 0\n"
	"end 5\n";

START_TEST(golden)
{
	const char *a = write_file("a.trms", golden_a);
	const char *b = write_file("b.trms", golden_b);
	const char *ab[] = { a, b }, *ba[] = { b, a };
	const char *out = in_scratch("ab.trms");

	merge(out, ab, 2);
	char *text = read_file(out);
	ck_assert_str_eq(text, golden_merged);
	free(text);
	merge(in_scratch("ba.trms"), ba, 2);
	assert_same_file(out, in_scratch("ba.trms"));

	/* The tuples as trms report shows them, merged or on the fly. */
	static const char tuples[] =
		"region\tthread\tmetric\tn\tcount\tmin\tmax\tsum\tsumsq\t"
		"induced_thread\tinduced_external\n"
		"emit\tio\trms\t0\t1\t6\t6\t6\t36\t0\t0\n"
		"parse\t0\ttrms\t8\t3\t1\t5\t9\t35\t1\t3\n"
		"parse\t0\ttrms\t9\t1\t4\t4\t4\t16\t0\t0\n"
		"parse\t0\trms\t8\t2\t3\t5\t8\t34\t0\t0\n"
		"sort\tworker\ttrms\t16\t4\t2\t9\t22\t139\t2\t0\n";
	const char *merged[] = { out };
	char *printed = report("--tuples", merged, 1);
	ck_assert_str_eq(printed, tuples);
	free(printed);
	printed = report("--tuples", ab, 2);
	ck_assert_str_eq(printed, tuples);
	free(printed);
}
END_TEST

/* One profile alone: the same profile, canonical (meta sorted, merged 1),
 * and canonical output is a fixed point. */
START_TEST(single_profile)
{
	const char *a = write_file("a.trms", golden_a);
	const char *one[] = { a };
	const char *out = in_scratch("one.trms"), *again = in_scratch("2.trms");

	merge(out, one, 1);
	char *text = read_file(out);
	ck_assert(strstr(text, "meta merged 1\n") != NULL);
	ck_assert(strstr(text, "meta pid 100\n") != NULL);
	ck_assert(strstr(text, "thread 1 name=worker creator=0 context=0 ") !=
		  NULL);
	/* Recomputed: 6 samples in 40 ms of CPU time. */
	ck_assert(strstr(text, "meta sample_hz_delivered 150\n") != NULL);
	free(text);
	const char *merged[] = { out };
	merge(again, merged, 1);
	assert_same_file(out, again);
	for (int i = 0; i < 2; i++) {
		const char *option = i ? "--tree" : "--tuples";
		char *x = report(option, one, 1), *y = report(option, merged, 1);
		ck_assert_str_eq(x, y);
		free(x);
		free(y);
	}
}
END_TEST

/* An input that can be read only once: a pipe, from bash's process
 * substitution.  The merge reads each input once, so it is merged as the
 * file would be. */
START_TEST(pipe_input)
{
	const char *a = write_file("a.trms", golden_a);
	const char *b = write_file("b.trms", golden_b);
	const char *out = in_scratch("piped.trms");
	char *argv[] = { "/bin/bash", "-c",
			 "exec \"$0\" merge -o \"$1\" <(cat \"$2\") \"$3\"",
			 (char *)test_env("TRMS_BIN"), (char *)out, (char *)a, (char *)b,
			 NULL };
	struct spawn_result r;

	spawn(argv, NULL, NULL, &r);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	ck_assert_str_eq(r.out, "");
	ck_assert_str_eq(r.err, "");
	spawn_free(&r);
	char *text = read_file(out);
	ck_assert_str_eq(text, golden_merged);
	free(text);
}
END_TEST

/* --- semantics, through the library ----------------------------------- */

static void read_profile(const char *path, struct profile_doc *p)
{
	char err[512];

	ck_assert_msg(profile_read(path, p, err, sizeof(err)) == 0, "%s", err);
}

static const struct profile_thread *
named_thread(const struct profile_doc *doc, const char *name)
{
	for (size_t i = 0; i < doc->n_threads; i++)
		if (doc->threads[i].name && !strcmp(doc->threads[i].name, name))
			return &doc->threads[i];
	return NULL;
}

START_TEST(thread_identity)
{
	/* Unnamed threads keep their ordinals; named ones take the
	 * smallest free ones, in name order.  zeta's creator and context
	 * agree (after renumbering), alpha's do not. */
	const char *a = write_file(
		"a.trms", "trms-profile 1\n"
			  "region 7 r\nregion 3 q\n"
			  "thread 0\n"
			  "thread 2 name=zeta creator=0 context=7/3\n"
			  "thread 3 name=alpha creator=0\n"
			  "thread 5 creator=2\n"
			  "end 0\n");
	const char *b = write_file(
		"b.trms", "trms-profile 1\n"
			  "region 0 q\nregion 1 r\n"
			  "thread 0\n"
			  "thread 1 name=zeta creator=0 context=1/0\n"
			  "thread 4 name=alpha creator=1\n"
			  "thread 5 creator=1 samples=3 cpu_ns=9\n"
			  "end 0\n");
	struct profile_doc in[2], out;
	char err[512];

	read_profile(a, &in[0]);
	read_profile(b, &in[1]);
	ck_assert_msg(profile_merge(in, 2, &out, err, sizeof(err)) == 0, "%s",
		      err);
	const struct profile_doc *d = &out;
	ck_assert_uint_eq(d->n_threads, 4);
	ck_assert_uint_eq(d->threads[0].ordinal, 0);
	ck_assert_ptr_null(d->threads[0].name);
	const struct profile_thread *alpha = named_thread(d, "alpha");
	const struct profile_thread *zeta = named_thread(d, "zeta");
	ck_assert_ptr_nonnull(alpha);
	ck_assert_ptr_nonnull(zeta);
	ck_assert_uint_eq(alpha->ordinal, 1);
	ck_assert_uint_eq(zeta->ordinal, 2);
	ck_assert(zeta->has_creator && zeta->creator == 0);
	ck_assert_uint_eq(zeta->context_depth, 2);
	ck_assert_str_eq(profile_region_name(d, zeta->context[0]), "r");
	ck_assert_str_eq(profile_region_name(d, zeta->context[1]), "q");
	/* alpha: created by 0 in a, by zeta in b. */
	ck_assert(!alpha->has_creator);
	const struct profile_thread *five = profile_thread(d, 5);
	ck_assert_ptr_nonnull(five);
	ck_assert_ptr_null(five->name);
	/* 5's creator: zeta in both (ordinal 2 in a, 1 in b). */
	ck_assert(five->has_creator && five->creator == zeta->ordinal);
	ck_assert(five->sampled);
	ck_assert_uint_eq(five->samples, 3);
	ck_assert_uint_eq(five->cpu_ns, 9);
	ck_assert(!d->threads[0].sampled);
	/* Regions in name order. */
	ck_assert_str_eq(d->regions[0].name, "q");
	ck_assert_str_eq(d->regions[1].name, "r");
	profile_doc_free(&out);
	profile_doc_free(&in[0]);
	profile_doc_free(&in[1]);
}
END_TEST

START_TEST(meta_rules)
{
	const char *a = write_file(
		"a.trms", "trms-profile 1\n"
			  "meta program p\nmeta command ./p%20x -v\n"
			  "meta pid 1\nmeta clock tsc\nmeta cost ns\n"
			  "meta renumbers 2\nmeta start_ns 30\nmeta end_ns 40\n"
			  "meta shadow_bytes 4096\nmeta merged 3\n"
			  "meta samples_dropped_unwind 4\nmeta only_a x\n"
			  "end 0\n");
	const char *b = write_file(
		"b.trms", "trms-profile 1\n"
			  "meta program p\nmeta command ./p%20x -v\n"
			  "meta pid 2\nmeta clock tsc\n"
			  "meta renumbers 5\nmeta start_ns 10\nmeta end_ns 20\n"
			  "meta shadow_bytes 4096\n"
			  "meta samples_dropped_unwind 1\n"
			  "meta samples_dropped_in_loader 7\n"
			  "end 0\n");
	const char *ab[] = { a, b };
	const char *out = in_scratch("ab.trms");

	merge(out, ab, 2);
	char *text = read_file(out);
	/* Without meta cost, costs are in ns: b agrees with a. */
	ck_assert_str_eq(text, "trms-profile 1\n"
			       "meta clock tsc\n"
			       "meta command ./p%20x -v\n"
			       "meta cost ns\n"
			       "meta end_ns 40\n"
			       "meta merged 4\n"
			       "meta program p\n"
			       "meta renumbers 7\n"
			       "meta samples_dropped_in_loader 7\n"
			       "meta samples_dropped_unwind 5\n"
			       "meta shadow_bytes 4096\n"
			       "meta start_ns 10\n"
			       "end 0\n");
	free(text);
}
END_TEST

/* --- algebra on random profiles --------------------------------------- */

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

	ck_assert_ptr_nonnull(f);
	fprintf(f, "trms-profile 1\nmeta program app\nmeta pid %" PRIu64
		   "\nmeta start_ns %" PRIu64 "\nmeta end_ns %" PRIu64 "\n"
		   "meta cost events\nmeta granularity 4\n"
		   "meta sample_clock cpu\nmeta sample_hz 100\n"
		   "meta samples %" PRIu64 "\nmeta sample_cpu_ns %" PRIu64 "\n"
		   "meta samples_dropped_unwind %" PRIu64 "\n",
		1000 + gen_below(&s, 1000), 1000 + gen_below(&s, 1000),
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
			" %" PRIu64 " %" PRIu64 "\n",
			regions[gen_below(&s, n_regions)],
			ordinals[gen_below(&s, n_threads)],
			gen_below(&s, 2) ? "trms" : "rms", gen_below(&s, 4),
			count, min, max, count * min + gen_below(&s, 20),
			gen_below(&s, 1000), gen_below(&s, 5),
			gen_below(&s, 5));
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

/* --- errors ----------------------------------------------------------- */

static const char minimal[] = "trms-profile 1\nmeta cost events\n"
			      "meta granularity 4\nregion 0 f\nthread 0\n"
			      "tuple 0 0 trms 1 1 2 2 2 4 0 0\nend 1\n";

/* @text is @minimal with @from replaced by @to. */
static const char *variant(const char *name, const char *from, const char *to)
{
	char text[512];
	const char *at = strstr(minimal, from);

	ck_assert_ptr_nonnull(at);
	snprintf(text, sizeof(text), "%.*s%s%s", (int)(at - minimal), minimal,
		 to, at + strlen(from));
	return write_file(name, text);
}

/* merge must fail with @status, a message containing each of @needles
 * (NULL-terminated), and OUT as it was. */
static void expect_failure(int status, const char *out, const char *before,
			   const char *const *args, const char *const *needles)
{
	char *argv[16];
	size_t k = 0;
	struct spawn_result r;

	argv[k++] = (char *)test_env("TRMS_BIN");
	argv[k++] = "merge";
	for (; args[k - 2]; k++)
		argv[k] = (char *)args[k - 2];
	argv[k] = NULL;
	spawn(argv, NULL, NULL, &r);
	ck_assert_msg(r.status == status, "exit %d, not %d: %s", r.status,
		      status, r.err);
	ck_assert_str_eq(r.out, "");
	for (size_t i = 0; needles[i]; i++)
		ck_assert_msg(strstr(r.err, needles[i]) != NULL,
			      "stderr '%s' lacks '%s'", r.err, needles[i]);
	spawn_free(&r);
	if (before) {
		char *now = read_file(out);
		ck_assert_str_eq(now, before);
		free(now);
	} else if (out) {
		ck_assert_msg(!exists(out), "%s was written", out);
	}
	/* No temporary file left behind either. */
	struct spawn_result ls;
	char *ls_argv[] = { "/bin/sh", "-c", "ls -a | grep -c tmp || true",
			    NULL };
	spawn(ls_argv, NULL, NULL, &ls);
	ck_assert_str_eq(ls.out, "0\n");
	spawn_free(&ls);
}

START_TEST(incompatible_inputs)
{
	const char *base = write_file("base.trms", minimal);
	const char *out = in_scratch("out.trms");
	static const struct {
		const char *name, *from, *to, *what;
	} cases[] = {
		{ "g8.trms", "granularity 4", "granularity 8", "granularity" },
		{ "ns.trms", "cost events", "cost ns", "costs in ns" },
		{ "wall.trms", "end 1",
		  "meta sample_clock wall\nmeta sample_hz 100\nend 1",
		  "wall time" },
		{ "hz.trms", "end 1",
		  "meta sample_clock cpu\nmeta sample_hz 200\nend 1",
		  "200 Hz" },
	};
	const char *cpu = variant("cpu.trms", "end 1",
				  "meta sample_clock cpu\nmeta sample_hz 100\n"
				  "end 1");

	for (size_t i = 0; i < POOL(cases); i++) {
		const char *other = variant(cases[i].name, cases[i].from,
					    cases[i].to);
		const char *first = i < 2 ? base : cpu;
		const char *args[] = { "-o", out, first, other, NULL };
		const char *needles[] = { "trms merge: ", cases[i].name,
					  i < 2 ? "base.trms" : "cpu.trms",
					  cases[i].what, "cannot be merged",
					  NULL };
		expect_failure(2, out, NULL, args, needles);
		/* An existing OUT is left as it was. */
		write_file("out.trms", "precious\n");
		expect_failure(2, out, "precious\n", args, needles);
		unlink(out);
	}
	/* Sampled and unsampled profiles do merge. */
	const char *both[] = { base, cpu };
	merge(out, both, 2);
}
END_TEST

START_TEST(bad_inputs)
{
	const char *good = write_file("good.trms", minimal);
	const char *corrupt = write_file(
		"corrupt.trms", "trms-profile 1\nregion 0 f\nthread 0\n"
				"tuple 0 0 trms 1 x 2 2 2 4 0 0\nend 1\n");
	const char *out = in_scratch("out.trms");
	const char *args1[] = { "-o", out, good, corrupt, NULL };
	const char *needles1[] = { "trms merge: ", "corrupt.trms:4:",
				   "bad number", NULL };
	expect_failure(2, out, NULL, args1, needles1);

	const char *missing = in_scratch("missing.trms");
	const char *args2[] = { "-o", out, missing, good, NULL };
	const char *needles2[] = { "missing.trms", "No such file", NULL };
	expect_failure(2, out, NULL, args2, needles2);

	const char *truncated = write_file("cut.trms", "trms-profile 1\n"
						       "region 0 f\n");
	const char *args3[] = { "-o", out, good, truncated, NULL };
	const char *needles3[] = { "cut.trms:3:", "truncated", NULL };
	expect_failure(2, out, NULL, args3, needles3);
}
END_TEST

START_TEST(unwritable_output)
{
	const char *good = write_file("good.trms", minimal);
	const char *out = in_scratch("no/such/dir/out.trms");
	const char *args[] = { "-o", out, good, NULL };
	const char *needles[] = { "trms merge: cannot write", out,
				  "No such file", NULL };

	expect_failure(1, out, NULL, args, needles);
	/* A directory in the way: OUT stays a directory. */
	ck_assert_int_eq(mkdir(in_scratch("dir.trms"), 0755), 0);
	const char *dir = in_scratch("dir.trms");
	const char *args2[] = { "-o", dir, good, NULL };
	const char *needles2[] = { "trms merge: cannot write", NULL };
	expect_failure(1, NULL, NULL, args2, needles2);
	struct stat st;
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
}
END_TEST

START_TEST(usage)
{
	const char *good = write_file("good.trms", minimal);
	const char *out = in_scratch("out.trms");
	const char *no_output[] = { good, NULL };
	const char *needles[] = { "-o OUT", "Try 'trms merge --help'", NULL };
	expect_failure(2, NULL, NULL, no_output, needles);
	ck_assert(!exists(out));

	const char *no_input[] = { "-o", out, NULL };
	const char *needles2[] = { "no PROFILE", NULL };
	expect_failure(2, out, NULL, no_input, needles2);

	const char *bad_option[] = { "--frobnicate", "-o", out, good, NULL };
	const char *needles3[] = { "Try 'trms merge --help'", NULL };
	expect_failure(2, out, NULL, bad_option, needles3);

	struct spawn_result r;
	run(&r, "merge", "--help", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert(strstr(r.out, "Usage: trms merge -o OUT PROFILE...") != NULL);
	ck_assert(strstr(r.out, "--output") && strstr(r.out, "Exit status"));
	spawn_free(&r);
	run(&r, "help", NULL);
	ck_assert(strstr(r.out, "  merge ") != NULL);
	spawn_free(&r);

	/* --output works as -o; the output may be an input. */
	const char *copy = write_file("copy.trms", minimal);
	run(&r, "merge", "--output", copy, copy, copy, NULL);
	ck_assert_msg(r.status == 0, "%s", r.err);
	spawn_free(&r);
	char *text = read_file(copy);
	ck_assert(strstr(text, "tuple 0 0 trms 1 2 2 2 4 8 0 0\n") != NULL);
	ck_assert(strstr(text, "meta merged 2\n") != NULL);
	free(text);
}
END_TEST

static Suite *merge_suite(void)
{
	Suite *s = suite_create("merge");
	TCase *tc = tcase_create("golden");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, golden);
	tcase_add_test(tc, single_profile);
	tcase_add_test(tc, pipe_input);
	suite_add_tcase(s, tc);

	tc = tcase_create("semantics");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, thread_identity);
	tcase_add_test(tc, meta_rules);
	suite_add_tcase(s, tc);

	tc = tcase_create("algebra");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, algebra_random_profiles, 0, 12);
	tcase_add_loop_test(tc, algebra_replay_profiles, 0, 3);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, incompatible_inputs);
	tcase_add_test(tc, bad_inputs);
	tcase_add_test(tc, unwritable_output);
	tcase_add_test(tc, usage);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(merge_suite());
}
