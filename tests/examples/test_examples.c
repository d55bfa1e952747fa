/*
 * test_examples.c - the example programs (here) and a few small I/O
 * programs (test_io.c), run profiled (profiled.c), their profiles checked
 * against values derived by hand from the semantics (README,
 * docs/how-it-works.md, docs/hooks.md).
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profiled.h"
#include "scratch.h"
#include "suite_main.h"

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

static Suite *examples_suite(void)
{
	Suite *s = suite_create("examples");
	TCase *tc = suite_case(s, "examples", 120, setup, teardown);

	SUITE_TESTS(tc, prodcons_consumer_input_is_n, bufread_input_is_external,
		    wordfreq_str_tolower_is_quadratic, wordfreq_bundled_text,
		    server_requests_are_external_input,
		    sorting_sum_input_is_the_producers);
	add_io_tests(tc);
	return s;
}

int main(void)
{
	return run_suite(examples_suite());
}
