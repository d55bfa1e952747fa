/*
 * bench_io.c - what the I/O hooks cost: the same loop of system calls
 * through the C library's functions directly (the baseline, looked up the
 * way the hooks look them up), through the hooks with the profiler on,
 * and through the hooks with the profiler paused.
 *
 *   - 1 byte written into a pipe and read back: the fixed cost per call;
 *   - 64 KiB written into a pipe and read back;
 *   - 64 KiB pread from a file in the page cache: the case where data
 *     arrives fastest, so the profiler's share is largest.
 *
 * A second baseline row, native against native, shows how much two runs
 * of the same loop differ on this machine: the paused hooks should be
 * within that of native.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trms.h"

#include "bench.h"
#include "base/real.h"

#define BIG (64 * 1024)
#define FILE_BYTES ((size_t)32 << 20)

static char buffer[BIG] __attribute__((aligned(64)));
static int pipe_fds[2];
static int file_fd;

struct io_op {
	size_t bytes;
	bool native;
	bool paused;
};

static void pipe_round(void *arg, uint64_t iters)
{
	const struct io_op *op = arg;

	for (uint64_t i = 0; i < iters; i++) {
		ssize_t w = op->native ? real.write(pipe_fds[1], buffer, op->bytes)
				       : write(pipe_fds[1], buffer, op->bytes);
		ssize_t r = op->native ? real.read(pipe_fds[0], buffer, op->bytes)
				       : read(pipe_fds[0], buffer, op->bytes);
		if (w != (ssize_t)op->bytes || r != (ssize_t)op->bytes)
			bench_check(-1, "pipe I/O");
	}
	bench_clobber(buffer);
}

static void file_round(void *arg, uint64_t iters)
{
	const struct io_op *op = arg;
	static off_t offset;

	for (uint64_t i = 0; i < iters; i++) {
		ssize_t r = op->native
				    ? real.pread(file_fd, buffer, BIG, offset)
				    : pread(file_fd, buffer, BIG, offset);
		if (r != BIG)
			bench_check(-1, "pread");
		offset = (offset + BIG) % (off_t)FILE_BYTES;
	}
	bench_clobber(buffer);
}

static void set_pause(void *arg)
{
	const struct io_op *op = arg;

	if (op->paused)
		trms_disable();
	else
		trms_enable();
}

static void make_file(void)
{
	char path[] = "/tmp/trms-bench-io-XXXXXX";

	file_fd = mkstemp(path);
	bench_check(file_fd < 0 ? -1 : 0, "mkstemp");
	unlink(path);
	memset(buffer, 'x', sizeof(buffer));
	for (size_t done = 0; done < FILE_BYTES; done += BIG)
		if (real.write(file_fd, buffer, BIG) != BIG)
			bench_check(-1, "writing the file");
	/* Read it once so that it is in the page cache. */
	for (size_t done = 0; done < FILE_BYTES; done += BIG)
		if (real.pread(file_fd, buffer, BIG, (off_t)done) != BIG)
			bench_check(-1, "reading the file");
}

/* Four cases of one kind: native, native again, hooked, hooked paused. */
static void measure(const char *title, void (*body)(void *, uint64_t),
		    size_t bytes, const char *target, double at_least)
{
	struct io_op ops[4] = {
		{ bytes, true, false },
		{ bytes, true, false },
		{ bytes, false, false },
		{ bytes, false, true },
	};
	struct bench_case cases[4] = {
		{ "native", body, set_pause, NULL, &ops[0], 0, { 0 } },
		{ "native again", body, set_pause, NULL, &ops[1], 0, { 0 } },
		{ "hooked", body, set_pause, NULL, &ops[2], 0, { 0 } },
		{ "hooked, paused", body, set_pause, NULL, &ops[3], 0, { 0 } },
	};
	struct bench_table t;

	bench_run(cases, 4);
	trms_enable();
	bench_table_init(&t, title);
	/* Throughput relative to native: native time / this case's time. */
	bench_table_add(&t, "native again (noise)", bench_case_median(&cases[1]),
			bench_case_median(&cases[0]), "ns",
			bench_ratio_median(&cases[0], &cases[1]), NULL,
			BENCH_NO_TARGET);
	double on = bench_ratio_median(&cases[0], &cases[2]);
	bench_table_add(&t, "hooked, profiler on", bench_case_median(&cases[2]),
			bench_case_median(&cases[0]), "ns", on, target,
			target ? bench_at_least(on, at_least)
			       : BENCH_NO_TARGET);
	bench_table_add(&t, "hooked, profiler paused",
			bench_case_median(&cases[3]),
			bench_case_median(&cases[0]), "ns",
			bench_ratio_median(&cases[0], &cases[3]),
			"as native again", BENCH_NO_TARGET);
	bench_table_print(&t, BENCH_METHOD
			  "\nmeasured, baseline: ns per round; ratio: "
			  "throughput relative to native (native time / "
			  "this time)");
}

int main(void)
{
	bench_require_active();
	real_resolve();
	bench_check(pipe(pipe_fds), "pipe");
	if (fcntl(pipe_fds[1], F_SETPIPE_SZ, BIG) < BIG)
		bench_check(-1, "pipe of 64 KiB");
	make_file();
	measure("I/O hooks: 1 byte written to a pipe and read back",
		pipe_round, 1, NULL, 0);
	measure("I/O hooks: 64 KiB written to a pipe and read back",
		pipe_round, BIG, NULL, 0);
	measure("I/O hooks: 64 KiB pread from the page cache", file_round, BIG,
		">= 0.8x native", 0.8);
	close(file_fd);
	return 0;
}
