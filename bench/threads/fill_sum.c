/*
 * fill_sum.c - threads that each fill and sum an array of their own, for
 * bench/threads/run.sh: ROUNDS rounds in all, split between THREADS
 * threads (every thread a worker; main only waits).  Prints the sum (the
 * same whatever the split) and, on stderr, the wall time of the work.
 *
 *   fill_sum THREADS ROUNDS [INTS]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int rounds_each;
static int ints;

__attribute__((noinline)) static void fill(int *a, int r)
{
	for (int i = 0; i < ints; i++)
		a[i] = i ^ r;
}

__attribute__((noinline)) static long sum(const int *a)
{
	long s = 0;

	for (int i = 0; i < ints; i++)
		s += a[i];
	return s;
}

static void *work(void *arg)
{
	int *a = malloc((size_t)ints * sizeof(int));
	long s = 0;

	if (!a)
		abort();
	for (int r = 0; r < rounds_each; r++) {
		fill(a, r);
		s += sum(a);
	}
	free(a);
	*(long *)arg = s;
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 1;
	int rounds = argc > 2 ? atoi(argv[2]) : 2000;
	pthread_t t[64];
	long s[64], total = 0;
	struct timespec a, b;

	ints = argc > 3 ? atoi(argv[3]) : 16384;
	if (threads < 1 || threads > 64 || rounds < threads || ints < 1) {
		fprintf(stderr, "usage: fill_sum THREADS ROUNDS [INTS]\n");
		return 2;
	}
	rounds_each = rounds / threads;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, work, &s[i]))
			return 1;
	for (int i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		total += s[i];
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	fprintf(stderr, "%.6f\n",
		(double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9);
	printf("%ld\n", total);
	return 0;
}
