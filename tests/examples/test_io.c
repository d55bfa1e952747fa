/*
 * test_io.c - the small I/O programs, profiled: a recv() loop over a
 * socketpair, getline/fgets/fread of standard input, writev of output read
 * back, and an unannotated host whose plugin opens regions; their
 * profiles checked against values derived by hand (see test_examples.c).
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profiled.h"
#include "scratch.h"
#include "suite_main.h"

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

void add_io_tests(TCase *tc)
{
	SUITE_TESTS(tc, recv_loop_over_socketpair, stdio_getline_fgets_fread,
		    writev_output_is_read, unannotated_host_io_before_plugin);
}
