/*
 * bench_rss.c - the memory the library adds to a program: peak resident
 * set size of an annotated workload (64 MiB of buffers, each written and
 * then read through regions) with the library active, against the same
 * workload, same binary, with TRMS_OFF=1 (library loaded but inert).
 *
 * Each run is a child process (this program again, with argument
 * "child"), so that its ru_maxrss, from wait4, is its own and nothing
 * else's; the two kinds of children alternate.  The active child also
 * reports the library's shadow memory, the part of the difference that
 * grows with the memory annotated.  There is no target: the numbers are
 * for tracking.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "runtime/thread.h"

#define BUFFERS 16
#define BUFFER_SIZE (4u << 20)
#define MIB (1024.0 * 1024.0)

static volatile uint64_t sink;

/* The workload: fill each buffer in one region, sum it in another, then
 * sum everything in one more; print the shadow memory in use. */
static int child(void)
{
	unsigned char *buf[BUFFERS];
	uint64_t sum = 0;

	for (int i = 0; i < BUFFERS; i++) {
		buf[i] = malloc(BUFFER_SIZE);
		if (!buf[i])
			return 1;
		trms_region_begin("fill");
		memset(buf[i], i, BUFFER_SIZE);
		trms_write(buf[i], BUFFER_SIZE);
		trms_region_end("fill");
		trms_region_begin("sum");
		for (size_t j = 0; j < BUFFER_SIZE; j += 64)
			sum += buf[i][j];
		trms_read(buf[i], BUFFER_SIZE);
		trms_region_end("sum");
	}
	trms_region_begin("all");
	for (int i = 0; i < BUFFERS; i++) {
		for (size_t j = 0; j < BUFFER_SIZE; j += 64)
			sum += buf[i][j];
		trms_read(buf[i], BUFFER_SIZE);
	}
	trms_region_end("all");
	sink = sum;
	bool active = runtime_active();
	printf("%zu\n", active ? engine_shadow_bytes(&runtime.engine) : 0);
	for (int i = 0; i < BUFFERS; i++)
		free(buf[i]);
	return 0;
}

/* Run the workload in a child; @return its peak RSS in bytes, and its
 * shadow memory in *shadow. */
static double run_child(bool inert, double *shadow)
{
	int out[2];
	char line[64] = "";

	bench_check(pipe(out) ? -errno : 0, "pipe");
	pid_t pid = fork();
	bench_check(pid < 0 ? -errno : 0, "fork");
	if (pid == 0) {
		dup2(out[1], STDOUT_FILENO);
		close(out[0]);
		close(out[1]);
		if (inert)
			setenv("TRMS_OFF", "1", 1);
		else
			unsetenv("TRMS_OFF");
		execl("/proc/self/exe", "bench-rss", "child", (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	FILE *in = fdopen(out[0], "r");
	if (!in || !fgets(line, sizeof(line), in))
		line[0] = '\0';
	if (in)
		fclose(in);
	int status;
	struct rusage ru;
	bench_check(wait4(pid, &status, 0, &ru) < 0 ? -errno : 0, "wait4");
	if (!WIFEXITED(status) || WEXITSTATUS(status) || !line[0]) {
		fprintf(stderr, "bench: the workload failed\n");
		exit(1);
	}
	*shadow = strtod(line, NULL);
	return (double)ru.ru_maxrss * 1024; /* ru_maxrss is in KiB */
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "child") == 0)
		return child();

	double off[BENCH_REPS], on[BENCH_REPS], ratio[BENCH_REPS];
	double shadow[BENCH_REPS], unused;

	for (unsigned rep = 0; rep < BENCH_REPS; rep++) {
		off[rep] = run_child(true, &unused) / MIB;
		on[rep] = run_child(false, &shadow[rep]) / MIB;
		shadow[rep] /= MIB;
		ratio[rep] = on[rep] / off[rep];
	}

	double annotated = BUFFERS * (double)BUFFER_SIZE / MIB;
	double shadow_mib = bench_median(shadow, BENCH_REPS);
	struct bench_table t;

	bench_table_init(&t, "peak RSS: 64 MiB annotated workload, active "
			     "vs TRMS_OFF=1");
	bench_table_add(&t, "peak RSS, active vs inert",
			bench_median(on, BENCH_REPS),
			bench_median(off, BENCH_REPS), "MiB",
			bench_median(ratio, BENCH_REPS), NULL,
			BENCH_NO_TARGET);
	bench_table_add(&t, "shadow memory vs memory annotated", shadow_mib,
			annotated, "MiB", shadow_mib / annotated, NULL,
			BENCH_NO_TARGET);
	bench_table_print(&t, "medians of " BENCH_STR_(BENCH_REPS)
			  " child processes of each kind, alternating; "
			  "ratio: median of the per-repetition ratios\n"
			  "RSS: ru_maxrss of the child; shadow memory: "
			  "engine_shadow_bytes() at the end of the workload");
	return 0;
}
