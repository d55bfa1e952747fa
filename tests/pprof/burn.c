/*
 * burn.c - a CPU-burning program for the pprof export test (pprof.sh).
 *
 * The main thread runs busy_a inside region "phase_a" for A ms of its own
 * CPU time; a second thread, named "worker_b", runs busy_b inside region
 * "phase_b" for B ms of its CPU time (defaults 600 and 200: busy_a has 75%
 * of the CPU time, busy_b 25%, however many cores run them and however
 * loaded the machine is).  Not linked with trms: it gets the API from the
 * library that `trms run` preloads (built with trms_weak.h, as the
 * examples' -preload programs are).
 *
 * Usage: burn [A_MS B_MS]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long ms_a = 600, ms_b = 200;
static volatile uint64_t sink;

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* About a tenth of a millisecond of arithmetic, with no call in it: the
 * samples taken in it end in the function that inlines it. */
static inline __attribute__((always_inline)) uint64_t spin(uint64_t x)
{
	for (int i = 0; i < 100000; i++)
		x = x * 6364136223846793005u + 1442695040888963407u;
	return x;
}

/* Each burns @ms milliseconds of the calling thread's CPU time; the clock
 * is read once per spin, a small fraction of the time. */
__attribute__((noinline)) static void busy_a(long ms)
{
	uint64_t end = thread_cpu_ns() + (uint64_t)ms * 1000000u, x = 1;

	while (thread_cpu_ns() < end)
		x = spin(x);
	sink = x;
}

__attribute__((noinline)) static void busy_b(long ms)
{
	uint64_t end = thread_cpu_ns() + (uint64_t)ms * 1000000u, x = 2;

	while (thread_cpu_ns() < end)
		x = spin(x);
	sink = x;
}

static void *worker(void *arg)
{
	(void)arg;
	trms_thread_name("worker_b");
	TRMS_REGION("phase_b") {
		busy_b(ms_b);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (!TRMS_API_LOADED()) {
		fprintf(stderr, "burn: libtrms is not loaded: run "
				"`trms run -- %s`\n", argv[0]);
		return 2;
	}
	if (argc == 3) {
		ms_a = strtol(argv[1], NULL, 10);
		ms_b = strtol(argv[2], NULL, 10);
	} else if (argc != 1) {
		fprintf(stderr, "usage: burn [A_MS B_MS]\n");
		return 2;
	}
	if (pthread_create(&t, NULL, worker, NULL)) {
		fprintf(stderr, "burn: cannot create a thread\n");
		return 1;
	}
	TRMS_REGION("phase_a") {
		busy_a(ms_a);
	}
	pthread_join(t, NULL);
	return 0;
}
