/*
 * bench_threads.c - does annotation scale with threads?  Each thread loops
 * over: begin a region, read its private 4 KiB buffer as 64 annotated
 * 64-byte reads, end the region.  Threads share nothing but the library.
 *
 * Baseline: the same loop on one thread, measured in the same run, each
 * repetition next to a two-thread one.  Throughput is iterations per
 * second, all threads together, over a fixed time; with 2 cores a library
 * that shares nothing on this path should run close to 2x (target: at
 * least 1.8x).  The two threads need both cores of the machine to
 * themselves: anything else running meanwhile lowers the ratio.  So the
 * table also shows how much CPU time the workers got (their thread CPU
 * clocks over the wall time) and the iterations per CPU-second, which a
 * neighbour taking cores away does not change but contention inside the
 * library does.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "trms.h"

#define MAX_THREADS 2
#define BUFFER 4096
#define PIECE 64
#define WARMUP_ITERS 10000
#define RUN_MS 200

struct worker {
	pthread_t thread;
	pthread_barrier_t *start;
	atomic_bool *stop;
	uint64_t iters;
	uint64_t cpu_ns; /* the thread's CPU time while measured */
	unsigned char buf[BUFFER] __attribute__((aligned(4096)));
};

struct result {
	double rate; /* iterations per second, all threads */
	double cpus; /* CPU time of the threads over the wall time */
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void iteration(const unsigned char *buf)
{
	trms_region_begin("iteration");
	for (size_t off = 0; off < BUFFER; off += PIECE)
		trms_read(buf + off, PIECE);
	trms_region_end("iteration");
}

static void *work(void *arg)
{
	struct worker *w = arg;
	uint64_t n = 0;

	/* Attaching the thread and its first accesses are not measured. */
	for (int i = 0; i < WARMUP_ITERS; i++)
		iteration(w->buf);
	pthread_barrier_wait(w->start);
	uint64_t cpu0 = thread_cpu_ns();
	while (!atomic_load_explicit(w->stop, memory_order_relaxed)) {
		iteration(w->buf);
		n++;
	}
	w->cpu_ns = thread_cpu_ns() - cpu0;
	w->iters = n;
	return NULL;
}

/* Run @n threads for RUN_MS. */
static struct result throughput(struct worker *workers, unsigned n)
{
	pthread_barrier_t start;
	atomic_bool stop = false;
	struct timespec run = { RUN_MS / 1000, (RUN_MS % 1000) * 1000000L };

	pthread_barrier_init(&start, NULL, n + 1);
	for (unsigned i = 0; i < n; i++) {
		workers[i].start = &start;
		workers[i].stop = &stop;
		bench_check(pthread_create(&workers[i].thread, NULL, work,
					   &workers[i]),
			    "pthread_create");
	}
	pthread_barrier_wait(&start);
	uint64_t t0 = bench_now_ns();
	nanosleep(&run, NULL);
	atomic_store(&stop, true);
	uint64_t elapsed = bench_now_ns() - t0;
	uint64_t total = 0, cpu_ns = 0;
	for (unsigned i = 0; i < n; i++) {
		pthread_join(workers[i].thread, NULL);
		total += workers[i].iters;
		cpu_ns += workers[i].cpu_ns;
	}
	pthread_barrier_destroy(&start);
	return (struct result){ (double)total * 1e9 / (double)elapsed,
				(double)cpu_ns / (double)elapsed };
}

/* Medians of the two-thread and one-thread values of one quantity, and
 * of their per-repetition ratio, in one row. */
static void add_row(struct bench_table *t, const char *what,
		    const double *two, const double *one, const char *unit,
		    const char *target, double limit)
{
	double ratio[BENCH_REPS];

	for (unsigned rep = 0; rep < BENCH_REPS; rep++)
		ratio[rep] = two[rep] / one[rep];
	double r = bench_median(ratio, BENCH_REPS);
	bench_table_add(t, what, bench_median(two, BENCH_REPS),
			bench_median(one, BENCH_REPS), unit, r, target,
			target ? bench_at_least(r, limit) : BENCH_NO_TARGET);
}

int main(void)
{
	bench_require_active();
	struct worker *workers = aligned_alloc(4096, MAX_THREADS *
							     sizeof(*workers));
	double rate[2][BENCH_REPS], cpus[2][BENCH_REPS], per_cpu[2][BENCH_REPS];

	if (!workers) {
		fprintf(stderr, "bench: out of memory\n");
		return 1;
	}
	for (unsigned rep = 0; rep < BENCH_REPS; rep++) {
		for (unsigned n = 1; n <= 2; n++) {
			struct result r = throughput(workers, n);
			rate[n - 1][rep] = r.rate / 1e6;
			cpus[n - 1][rep] = r.cpus;
			per_cpu[n - 1][rep] = r.rate / r.cpus / 1e6;
		}
	}

	struct bench_table t;
	char note[512];

	bench_table_init(&t, "scaling: region + 64 reads of 64 B per "
			     "iteration, 2 threads vs 1");
	add_row(&t, "iterations/s, all threads", rate[1], rate[0], "M/s",
		">= 1.8x", 1.8);
	add_row(&t, "CPUs the threads got", cpus[1], cpus[0], "CPU", NULL, 0);
	add_row(&t, "iterations per CPU-second", per_cpu[1], per_cpu[0],
		"M/s", NULL, 0);
	snprintf(note, sizeof(note),
		 "medians of %d repetitions of %d ms per thread count, 1 and 2 "
		 "threads alternating; ratio: median of the per-repetition "
		 "ratios\n"
		 "this machine has %ld CPUs, shared with whatever else runs: a "
		 "noisy neighbour can depress the ratio\n"
		 "(fewer CPUs for 2 threads than 2.00 shows one; a per-CPU "
		 "ratio well below 1.00x would be the library's own contention)",
		 BENCH_REPS, RUN_MS, sysconf(_SC_NPROCESSORS_ONLN));
	bench_table_print(&t, note);
	free(workers);
	return 0;
}
