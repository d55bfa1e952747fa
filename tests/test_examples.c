/*
 * test_examples.c - the example programs and a few small I/O programs,
 * run profiled, their profiles checked against values derived by hand from
 * the semantics (README, docs/how-it-works.md, docs/hooks.md).
 *
 * Every run uses TRMS_COST=events, so costs are counts of access
 * operations: trms_read/trms_write calls and hooked I/O calls that moved
 * data.  Cells are K = 4 bytes unless a test sets the granularity.  The
 * programs' buffers start on a cell boundary, so an access of b bytes at
 * its start covers ceil(b / 4) cells.
 *
 * Each example runs linked with the library (<name>) and not linked
 * (<name>-preload) under `trms run`; prodcons also with LD_PRELOAD.
 * Meson passes the programs' paths: TRMS_BIN, TRMS_LIB (libtrms.so),
 * EXAMPLE_<NAME> for each program, EXAMPLES_DATA (examples/data), and
 * EXAMPLES_NO_PRELOAD=1 in sanitizer builds (whose runtime must be loaded
 * first, so nothing can be preloaded before it).
 */
#define _GNU_SOURCE
#include <check.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scratch.h"
#include "spawn.h"
#include "suite_main.h"

static char scratch[256];

enum mode { LINKED, TRMS_RUN, PRELOAD };
static const char *const mode_names[] = { "linked", "preload-only, trms run",
					  "preload-only, LD_PRELOAD" };

struct row {
	char region[64], thread[64], metric[8];
	unsigned long long n, count, min, max, sum, induced_thread,
		induced_external;
};

struct profile {
	struct row *rows;
	size_t len;
	char *text; /* the report, for messages */
	char *out;  /* the program's standard output */
	const char *what; /* program and mode, for messages */
};

/* The program called @name ("prodcons", "bufread-preload", ...). */
static const char *program(const char *name)
{
	char var[64];
	size_t i = 0;

	i += (size_t)snprintf(var, sizeof(var), "EXAMPLE_");
	for (; *name && i < sizeof(var) - 1; name++)
		var[i++] = *name == '-' ? '_' : (char)toupper((unsigned char)*name);
	var[i] = '\0';
	return test_env(var);
}

static int preload_possible(void)
{
	const char *no = getenv("EXAMPLES_NO_PRELOAD");

	return !no || strcmp(no, "1") != 0;
}

static const char *scratch_file(const char *name, const char *text)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/%s", scratch, name);
	file_write(path, text);
	return path;
}

static void parse_report(struct profile *p)
{
	char *copy = strdup(p->text), *save = NULL, *line;

	ck_assert_ptr_nonnull(copy);
	line = strtok_r(copy, "\n", &save);

	ck_assert_msg(line && !strcmp(line, "region\tthread\tmetric\tn\tcount\t"
					     "min\tmax\tsum\tsumsq\t"
					     "induced_thread\tinduced_external"),
		      "%s: report has no header", p->what);
	while ((line = strtok_r(NULL, "\n", &save))) {
		struct row r;
		char sumsq[64];
		p->rows = realloc(p->rows, (p->len + 1) * sizeof(*p->rows));
		ck_assert_ptr_nonnull(p->rows);
		int fields = sscanf(line,
				    "%63[^\t]\t%63[^\t]\t%7[^\t]\t%llu\t%llu\t%llu\t"
				    "%llu\t%llu\t%63[^\t]\t%llu\t%llu",
				    r.region, r.thread, r.metric, &r.n, &r.count,
				    &r.min, &r.max, &r.sum, sumsq,
				    &r.induced_thread, &r.induced_external);
		ck_assert_msg(fields == 11, "%s: bad report line '%s'", p->what,
			      line);
		p->rows[p->len++] = r;
	}
	free(copy);
}

/*
 * Run program @name with @args (NULL-terminated) in @mode, with
 * TRMS_COST=events, granularity @granularity (NULL: 4, the default), the
 * profile going to the scratch directory; then `trms report --tuples` it.
 * The program must exit 0.
 */
static void profile_run(struct profile *p, const char *name, enum mode mode,
			const char *granularity, ...)
{
	static char what[128], output[600], env_output[700], env_gran[64],
		env_preload[4200];
	char *argv[32], *env[8];
	size_t a = 0, e = 0;
	struct spawn_result r;
	va_list ap;

	memset(p, 0, sizeof(*p));
	snprintf(what, sizeof(what), "%s (%s)", name, mode_names[mode]);
	p->what = what;
	snprintf(output, sizeof(output), "%s/profile.trms", scratch);
	unlink(output);
	/* Every setting explicit: nothing inherited changes the numbers. */
	const char *cell = granularity ? granularity : "4";
	env[e++] = "TRMS_OFF=0";
	if (mode == TRMS_RUN) {
		argv[a++] = (char *)test_env("TRMS_BIN");
		argv[a++] = "run";
		argv[a++] = "--cost";
		argv[a++] = "events";
		argv[a++] = "--output";
		argv[a++] = output;
		argv[a++] = "--granularity";
		argv[a++] = (char *)cell;
		argv[a++] = "--";
	} else {
		env[e++] = "TRMS_COST=events";
		snprintf(env_output, sizeof(env_output), "TRMS_OUTPUT=%s",
			 output);
		env[e++] = env_output;
		snprintf(env_gran, sizeof(env_gran), "TRMS_GRANULARITY=%s",
			 cell);
		env[e++] = env_gran;
		if (mode == PRELOAD) {
			snprintf(env_preload, sizeof(env_preload),
				 "LD_PRELOAD=%s", test_env("TRMS_LIB"));
			env[e++] = env_preload;
		}
	}
	env[e] = NULL;
	argv[a++] = (char *)program(name);
	va_start(ap, granularity);
	for (char *arg; (arg = va_arg(ap, char *));)
		argv[a++] = arg;
	va_end(ap);
	argv[a] = NULL;

	spawn(argv, NULL, env, &r);
	ck_assert_msg(r.status == 0, "%s: exit status %d, expected 0; stderr:\n%s",
		      what, r.status, r.err);
	p->out = r.out;
	free(r.err);

	char *report_argv[] = { (char *)test_env("TRMS_BIN"), "report",
				"--tuples", output, NULL };
	spawn(report_argv, NULL, NULL, &r);
	ck_assert_msg(r.status == 0, "%s: trms report --tuples %s: exit %d: %s",
		      what, output, r.status, r.err);
	free(r.err);
	p->text = r.out;
	parse_report(p);
}

static void profile_free(struct profile *p)
{
	free(p->rows);
	free(p->text);
	free(p->out);
}

/* The single tuple of @region and @metric: the region had one activation
 * (or all its activations had the same input size, on one thread). */
static const struct row *one_row(const struct profile *p, const char *region,
				 const char *metric)
{
	const struct row *found = NULL;
	size_t matches = 0;

	for (size_t i = 0; i < p->len; i++)
		if (!strcmp(p->rows[i].region, region) &&
		    !strcmp(p->rows[i].metric, metric)) {
			found = &p->rows[i];
			matches++;
		}
	ck_assert_msg(matches == 1,
		      "%s: expected exactly one %s tuple for region '%s', found "
		      "%zu; report:\n%s",
		      p->what, metric, region, matches, p->text);
	return found;
}

/*
 * One activation of @region: its trms and rms, its induced reads and its
 * cost (events), each expected value with the reason for it.
 */
struct expect {
	unsigned long long trms, rms, induced_thread, induced_external, cost;
	const char *why_trms, *why_rms, *why_induced, *why_cost;
};

static void check_activation(const struct profile *p, const char *region,
			     const struct expect *x)
{
	const struct row *t = one_row(p, region, "trms");
	const struct row *r = one_row(p, region, "rms");

	ck_assert_msg(t->count == 1 && r->count == 1,
		      "%s: region '%s' should have run once, tuples count %llu "
		      "and %llu activations",
		      p->what, region, t->count, r->count);
	ck_assert_msg(t->n == x->trms,
		      "%s: '%s' trms: expected %llu (%s), got %llu; report:\n%s",
		      p->what, region, x->trms, x->why_trms, t->n, p->text);
	ck_assert_msg(r->n == x->rms,
		      "%s: '%s' rms: expected %llu (%s), got %llu; report:\n%s",
		      p->what, region, x->rms, x->why_rms, r->n, p->text);
	for (int i = 0; i < 2; i++) {
		const struct row *row = i ? r : t;
		ck_assert_msg(row->induced_thread == x->induced_thread &&
				      row->induced_external ==
					      x->induced_external,
			      "%s: '%s' (%s tuple) induced_thread/external: "
			      "expected %llu/%llu (%s), got %llu/%llu",
			      p->what, region, row->metric, x->induced_thread,
			      x->induced_external, x->why_induced,
			      row->induced_thread, row->induced_external);
		ck_assert_msg(row->min == x->cost && row->max == x->cost &&
				      row->sum == x->cost,
			      "%s: '%s' cost: expected %llu events (%s), got "
			      "min %llu max %llu sum %llu",
			      p->what, region, x->cost, x->why_cost, row->min,
			      row->max, row->sum);
	}
}

static void setup(void)
{
	scratch_make(scratch, sizeof(scratch), "examples");
	ck_assert_int_eq(chdir(scratch), 0);
}

static void teardown(void)
{
	ck_assert_int_eq(chdir("/"), 0);
	ck_assert(scratch_remove(scratch));
}

/* The modes to run an example in: linked, then its -preload build. */
static size_t example_modes(enum mode modes[3], int with_ld_preload)
{
	size_t n = 0;

	modes[n++] = LINKED;
	if (preload_possible()) {
		modes[n++] = TRMS_RUN;
		if (with_ld_preload)
			modes[n++] = PRELOAD;
	}
	return n;
}

static const char *variant(const char *name, enum mode mode)
{
	static char buf[64];

	snprintf(buf, sizeof(buf), "%s%s", name,
		 mode == LINKED ? "" : "-preload");
	return buf;
}

/* ---- prodcons ---- */

START_TEST(prodcons_consumer_input_is_n)
{
	static const struct expect x = {
		.trms = 777,
		.why_trms = "the consumer reads the 1-cell buffer 777 times and "
			    "the producer thread wrote it before each read",
		.rms = 1,
		.why_rms = "rms ignores other threads: one cell, the buffer",
		.induced_thread = 777,
		.induced_external = 0,
		.why_induced = "all 777 reads are of a cell another thread "
			       "wrote since; no kernel I/O",
		.cost = 777,
		.why_cost = "its 777 trms_read calls",
	};
	enum mode modes[3];
	size_t n = example_modes(modes, 1);

	for (size_t i = 0; i < n; i++) {
		struct profile p;
		profile_run(&p, variant("prodcons", modes[i]), modes[i], NULL,
			    "777", NULL);
		check_activation(&p, "consumer", &x);
		ck_assert_msg(!strcmp(one_row(&p, "consumer", "trms")->thread,
				      "consumer"),
			      "%s: the region ran on the thread named "
			      "'consumer'", p.what);
		profile_free(&p);
	}
}
END_TEST

/* ---- bufread ---- */

START_TEST(bufread_input_is_external)
{
	/* 1001 bytes through a 64-byte buffer: 15 read()s of 64 bytes
	 * (16 cells each) and one of 41 (ceil(41 / 4) = 11 cells). */
	static const struct expect x = {
		.trms = 15 * 16 + 11,
		.why_trms = "15 reads of 16 cells and one of 11, each cell "
			    "refilled by the kernel before it is read again",
		.rms = 16,
		.why_rms = "the 64-byte buffer is 16 cells; rms ignores the "
			   "kernel's refills",
		.induced_thread = 0,
		.induced_external = 251,
		.why_induced = "every counted read is of a cell the kernel "
			       "filled (read()) since",
		.cost = 32,
		.why_cost = "16 read() calls that returned data + 16 trms_read "
			    "calls; the last read() returns 0 and is not one",
	};
	char data[1002];
	enum mode modes[3];
	size_t n = example_modes(modes, 0);

	for (size_t i = 0; i < 1001; i++)
		data[i] = (char)('a' + i % 26);
	data[1001] = '\0';
	const char *file = scratch_file("data-1001", data);
	for (size_t i = 0; i < n; i++) {
		struct profile p;
		profile_run(&p, variant("bufread", modes[i]), modes[i], NULL,
			    file, NULL);
		check_activation(&p, "reader", &x);
		ck_assert_msg(strstr(p.out, "1001 bytes in 16 reads") != NULL,
			      "%s: expected '1001 bytes in 16 reads' on stdout, "
			      "got '%s'",
			      p.what, p.out);
		profile_free(&p);
	}
}
END_TEST

/* ---- wordfreq ---- */

/* The rows of @region and @metric, in the order of the report (by
 * thread, then ascending n). */
static size_t rows_of(const struct profile *p, const char *region,
		      const char *metric, const struct row **out, size_t max)
{
	size_t k = 0;

	for (size_t i = 0; i < p->len && k < max; i++)
		if (!strcmp(p->rows[i].region, region) &&
		    !strcmp(p->rows[i].metric, metric))
			out[k++] = &p->rows[i];
	return k;
}

START_TEST(wordfreq_str_tolower_is_quadratic)
{
	/* Words of 1, 2, 3, 4, 5, 1, 2 letters.  At granularity 1, the
	 * activation for a word of L letters reads L + 1 bytes (the word
	 * and its NUL): n = L + 1; it calls strlen L + 1 times, each
	 * reading n bytes one trms_read at a time, and writes L bytes:
	 * cost = n * n + L = n^2 + n - 1 events. */
	static const struct {
		unsigned long long n, count, cost;
	} want[] = {
		{ 2, 2, 5 },  /* "a" twice: 2 * 2 + 1 */
		{ 3, 2, 11 }, /* "bb", "Bb": 3 * 3 + 2 */
		{ 4, 1, 19 }, /* "ccc": 4 * 4 + 3 */
		{ 5, 1, 29 }, /* "dddd": 5 * 5 + 4 */
		{ 6, 1, 41 }, /* "EEEEE": 6 * 6 + 5 */
	};
	const char *text = scratch_file("seven-words.txt",
					"a bb ccc dddd\nEEEEE a Bb\n");
	enum mode modes[3];
	size_t modes_n = example_modes(modes, 0);

	for (size_t m = 0; m < modes_n; m++) {
		struct profile p;
		const struct row *rows[64];
		profile_run(&p, variant("wordfreq", modes[m]), modes[m], "1",
			    text, NULL);
		ck_assert_msg(strstr(p.out, "words 7, distinct 5\n") != NULL,
			      "%s: expected 7 words, 5 distinct, got '%s'",
			      p.what, p.out);
		for (int metric = 0; metric < 2; metric++) {
			const char *name = metric ? "rms" : "trms";
			size_t k = rows_of(&p, "str_tolower", name, rows, 64);
			ck_assert_msg(k == 5,
				      "%s: expected str_tolower %s tuples for "
				      "the 5 word lengths, got %zu:\n%s",
				      p.what, name, k, p.text);
			for (size_t i = 0; i < k; i++)
				ck_assert_msg(
					rows[i]->n == want[i].n &&
						rows[i]->count == want[i].count &&
						rows[i]->min == want[i].cost &&
						rows[i]->max == want[i].cost &&
						rows[i]->induced_thread == 0 &&
						rows[i]->induced_external == 0,
					"%s: str_tolower %s: expected n=%llu "
					"(word + NUL, in bytes) for %llu "
					"words, each costing n^2 + n - 1 = "
					"%llu events, nothing induced (the "
					"word buffer is the thread's own "
					"copy); got n=%llu count=%llu "
					"min=%llu max=%llu induced %llu/%llu",
					p.what, name, want[i].n, want[i].count,
					want[i].cost, rows[i]->n,
					rows[i]->count, rows[i]->min,
					rows[i]->max, rows[i]->induced_thread,
					rows[i]->induced_external);
		}
		size_t k = rows_of(&p, "addword", "trms", rows, 64);
		unsigned long long calls = 0;
		for (size_t i = 0; i < k; i++)
			calls += rows[i]->count;
		ck_assert_msg(calls == 7,
			      "%s: expected 7 addword activations (one per "
			      "word), got %llu",
			      p.what, calls);
		profile_free(&p);
	}
}
END_TEST

/* The bundled text: whatever its words, every str_tolower activation of
 * input n (bytes, at granularity 1) costs exactly n^2 + n - 1 events. */
START_TEST(wordfreq_bundled_text)
{
	char path[4200];
	struct profile p;
	const struct row *rows[512];

	snprintf(path, sizeof(path), "%s/words.txt", test_env("EXAMPLES_DATA"));
	profile_run(&p, "wordfreq", LINKED, "1", path, NULL);
	ck_assert_msg(strncmp(p.out, "words ", 6) == 0,
		      "%s: expected the word counts, got '%s'", p.what, p.out);
	size_t k = rows_of(&p, "str_tolower", "trms", rows, 512);
	ck_assert_msg(k >= 20, "%s: expected many word lengths, got %zu",
		      p.what, k);
	for (size_t i = 0; i < k; i++) {
		unsigned long long n = rows[i]->n, cost = n * n + n - 1;
		ck_assert_msg(rows[i]->min == cost && rows[i]->max == cost,
			      "%s: str_tolower of input %llu bytes: expected "
			      "cost %llu = n^2 + n - 1 events for every "
			      "activation, got min %llu max %llu",
			      p.what, n, cost, rows[i]->min, rows[i]->max);
	}
	profile_free(&p);
}
END_TEST

/* ---- server ---- */

START_TEST(server_requests_are_external_input)
{
	/* 60 requests over 3 connections; request i has n_i = 1 +
	 * (i * 389) % 4096 bytes (server.c).  Its activation of "request"
	 * reads the length (1 cell) and the n_i bytes (ceil(n_i / 4)
	 * cells), all filled by recv(): trms = rms = induced_external =
	 * 1 + ceil(n_i / 4).  The response buffer it sends was written by
	 * the activation itself: not new input. */
	enum { R = 60 };
	unsigned long long cells[R];
	enum mode modes[3];
	size_t modes_n = example_modes(modes, 0);

	for (long i = 0; i < R; i++) {
		unsigned long long n = 1 + (unsigned long long)(i * 389) % 4096;
		cells[i] = 1 + (n + 3) / 4;
	}
	for (size_t m = 0; m < modes_n; m++) {
		struct profile p;
		profile_run(&p, variant("server", modes[m]), modes[m], NULL,
			    "60", "3", NULL);
		unsigned long long total[2] = { 0, 0 };
		for (size_t i = 0; i < p.len; i++) {
			const struct row *row = &p.rows[i];
			if (strcmp(row->region, "request"))
				continue;
			int rms = !strcmp(row->metric, "rms");
			unsigned long long want = 0;
			for (long j = 0; j < R; j++)
				want += cells[j] == row->n;
			ck_assert_msg(want > 0,
				      "%s: request %s tuple of n=%llu: no "
				      "request has 1 + ceil(n_i / 4) = %llu",
				      p.what, row->metric, row->n, row->n);
			ck_assert_msg(!strncmp(row->thread, "connection ", 11),
				      "%s: request ran on thread '%s', not "
				      "on a connection thread",
				      p.what, row->thread);
			ck_assert_msg(row->induced_external ==
						      row->n * row->count &&
					      row->induced_thread == 0,
				      "%s: request %s n=%llu (%llu "
				      "activations): expected induced_external "
				      "%llu (every cell read came from "
				      "recv()), induced_thread 0; got %llu, "
				      "%llu",
				      p.what, row->metric, row->n, row->count,
				      row->n * row->count,
				      row->induced_external,
				      row->induced_thread);
			total[rms] += row->count;
		}
		/* Per n: the tuples of all connection threads together
		 * count the requests whose 1 + ceil(n_i / 4) is n. */
		for (long j = 0; j < R; j++) {
			unsigned long long want = 0, got[2] = { 0, 0 };
			for (long k = 0; k < R; k++)
				want += cells[k] == cells[j];
			for (size_t i = 0; i < p.len; i++)
				if (!strcmp(p.rows[i].region, "request") &&
				    p.rows[i].n == cells[j])
					got[!strcmp(p.rows[i].metric, "rms")] +=
						p.rows[i].count;
			ck_assert_msg(got[0] == want && got[1] == want,
				      "%s: request %ld (%llu cells): expected "
				      "%llu activations with trms = rms = "
				      "%llu, got %llu (trms) and %llu (rms)",
				      p.what, j, cells[j], want, cells[j],
				      got[0], got[1]);
		}
		ck_assert_msg(total[0] == R && total[1] == R,
			      "%s: expected %d request activations, got %llu "
			      "(trms) %llu (rms)",
			      p.what, R, total[0], total[1]);
		profile_free(&p);
	}
}
END_TEST

/* ---- sorting ---- */

START_TEST(sorting_sum_input_is_the_producers)
{
	enum mode modes[3];
	size_t modes_n = example_modes(modes, 0);

	for (size_t m = 0; m < modes_n; m++) {
		struct profile p;
		unsigned long long sums = 0, sorts = 0;
		profile_run(&p, variant("sorting", modes[m]), modes[m], NULL,
			    NULL);
		for (size_t i = 0; i < p.len; i++) {
			const struct row *row = &p.rows[i];
			if (strcmp(row->metric, "trms"))
				continue;
			if (!strcmp(row->region, "sum")) {
				sums += row->count;
				ck_assert_msg(row->induced_thread ==
						      row->n * row->count,
					      "%s: sum of %llu cells: every "
					      "cell was written by the "
					      "producer thread, expected "
					      "induced_thread %llu, got %llu",
					      p.what, row->n,
					      row->n * row->count,
					      row->induced_thread);
			} else if (!strcmp(row->region, "insertion_sort")) {
				sorts += row->count;
				ck_assert_msg(row->induced_thread == 0,
					      "%s: insertion_sort reads what "
					      "its thread read in sum: "
					      "expected induced_thread 0, "
					      "got %llu",
					      p.what, row->induced_thread);
			}
		}
		ck_assert_msg(sums == 400 && sorts == 400,
			      "%s: expected 400 sums and 400 sorts (ARRAYS), "
			      "got %llu and %llu",
			      p.what, sums, sorts);
		profile_free(&p);
	}
}
END_TEST

/* ---- the small I/O programs ---- */

START_TEST(recv_loop_over_socketpair)
{
	/* Messages of k = 1..100 bytes, each received at the start of one
	 * buffer: message k fills ceil(k / 4) cells, which the kernel
	 * wrote since the last read: sum ceil(k / 4) = 4 * (1 + ... + 25)
	 * = 1300. */
	static const struct expect x = {
		.trms = 1300,
		.why_trms = "sum over k = 1..100 of ceil(k / 4) cells, each "
			    "refilled by recv() before it is read",
		.rms = 25,
		.why_rms = "the largest message, 100 bytes, spans 25 cells; rms "
			   "ignores the kernel",
		.induced_thread = 0,
		.induced_external = 1300,
		.why_induced = "every counted read is of a cell recv() filled; "
			       "the sender thread never writes the buffer",
		.cost = 200,
		.why_cost = "100 recv() calls that returned data + 100 "
			    "trms_read calls",
	};
	struct profile p;

	profile_run(&p, "recv_loop", LINKED, NULL, "100", NULL);
	check_activation(&p, "recv_loop", &x);
	profile_free(&p);
}
END_TEST

START_TEST(stdio_getline_fgets_fread)
{
	/* Lines of 2, 12, 1, 17 and 3 bytes (the last without newline):
	 * 1 + 3 + 1 + 5 + 1 = 11 cells, 35 bytes in all. */
	static const struct expect lines = {
		.trms = 11,
		.why_trms = "lines of 2, 12, 1, 17, 3 bytes: 1 + 3 + 1 + 5 + 1 "
			    "cells, each written by the call before it is read",
		.rms = 5,
		.why_rms = "every line starts the buffer; the longest, 17 bytes, "
			   "spans 5 cells",
		.induced_thread = 0,
		.induced_external = 11,
		.why_induced = "all input came from the stdio call",
		.cost = 10,
		.why_cost = "5 calls that returned a line + 5 trms_read calls",
	};
	static const struct expect blocks = {
		.trms = 9,
		.why_trms = "35 bytes read 16 at a time: 16, 16, 3 bytes = "
			    "4 + 4 + 1 cells",
		.rms = 4,
		.why_rms = "the 16-byte buffer: 4 cells",
		.induced_thread = 0,
		.induced_external = 9,
		.why_induced = "all input came from fread",
		.cost = 6,
		.why_cost = "3 fread calls that returned data + 3 trms_read "
			    "calls",
	};
	const char *file = scratch_file(
		"lines.txt", "a\nhello world\n\n0123456789abcdef\nend");
	struct profile p;

	profile_run(&p, "stdio_input", LINKED, NULL, file, NULL);
	check_activation(&p, "getline", &lines);
	check_activation(&p, "fgets", &lines);
	check_activation(&p, "fread", &blocks);
	profile_free(&p);
}
END_TEST

START_TEST(writev_output_is_read)
{
	static const struct expect two = {
		.trms = 16,
		.why_trms = "writev reads its buffers: 40 + 24 bytes = 10 + 6 "
			    "cells, never accessed before",
		.rms = 16,
		.why_rms = "the same first reads",
		.induced_thread = 0,
		.induced_external = 0,
		.why_induced = "data leaving is not input from anyone",
		.cost = 1,
		.why_cost = "one writev call, no trms_read at all",
	};
	static const struct expect twice = {
		.trms = 10,
		.why_trms = "the 40-byte buffer twice in one vector: its 10 "
			    "cells count once",
		.rms = 10,
		.why_rms = "the same first reads",
		.induced_thread = 0,
		.induced_external = 0,
		.why_induced = "data leaving is not input from anyone",
		.cost = 1,
		.why_cost = "one writev call",
	};
	struct profile p;

	profile_run(&p, "writev_out", LINKED, NULL, NULL);
	check_activation(&p, "writev", &two);
	check_activation(&p, "writev_twice", &twice);
	profile_free(&p);
}
END_TEST

/*
 * A program with no annotation of its own records no I/O until it loads
 * a plugin that opens regions (io_hooks.c): trms and rms stay exact for
 * data that arrived before, only its kind is lost.  io_host reads 64
 * bytes before loading the plugin and 64 after, and hands each to one
 * activation of "consume", which reads them: 16 cells each (K = 4), all
 * never accessed by the thread since they arrived.
 */
START_TEST(unannotated_host_io_before_plugin)
{
	struct profile p;
	char file[600];

	if (!preload_possible())
		return;
	snprintf(file, sizeof(file), "%s/io-host.data", scratch);
	profile_run(&p, "io_host", PRELOAD, NULL, test_env("IO_PLUGIN"), file,
		    NULL);
	const struct row *t = one_row(&p, "consume", "trms");
	const struct row *r = one_row(&p, "consume", "rms");
	for (int i = 0; i < 2; i++) {
		const struct row *row = i ? r : t;
		ck_assert_msg(row->n == 16 && row->count == 2,
			      "%s: consume %s: expected 2 activations of n = 16 "
			      "(64 bytes, first reads), got %llu of n = %llu; "
			      "report:\n%s",
			      p.what, row->metric, row->count, row->n, p.text);
		ck_assert_msg(row->induced_external == 16 &&
				      row->induced_thread == 0,
			      "%s: consume %s: expected 16 external reads (the "
			      "half read after the plugin came; the half "
			      "before it is a first access, of no kind), 0 "
			      "thread; got %llu, %llu",
			      p.what, row->metric, row->induced_external,
			      row->induced_thread);
		ck_assert_msg(row->min == 1 && row->max == 1 && row->sum == 2,
			      "%s: consume cost: expected 1 event each, got "
			      "min %llu max %llu sum %llu",
			      p.what, row->min, row->max, row->sum);
	}
	profile_free(&p);
}
END_TEST

static Suite *examples_suite(void)
{
	Suite *s = suite_create("examples");
	TCase *tc = suite_case(s, "examples", 120, setup, teardown);

	tcase_add_test(tc, prodcons_consumer_input_is_n);
	tcase_add_test(tc, bufread_input_is_external);
	tcase_add_test(tc, wordfreq_str_tolower_is_quadratic);
	tcase_add_test(tc, wordfreq_bundled_text);
	tcase_add_test(tc, server_requests_are_external_input);
	tcase_add_test(tc, sorting_sum_input_is_the_producers);
	tcase_add_test(tc, recv_loop_over_socketpair);
	tcase_add_test(tc, stdio_getline_fgets_fread);
	tcase_add_test(tc, writev_output_is_read);
	tcase_add_test(tc, unannotated_host_io_before_plugin);
	return s;
}

int main(void)
{
	return run_suite(examples_suite());
}
