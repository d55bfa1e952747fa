/*
 * cpu_workload.c - a deterministic CPU-bound program for
 * bench/bench_sampling.sh, which runs it natively and under sampling
 * profilers (trms and gperftools, both preloaded: this program is not
 * linked with trms).
 *
 *   cpu_workload [THREADS [UNITS]]
 *
 * The work is UNITS units (default 600: about 1.5 s of CPU time on the
 * machine of docs/performance.md), each a few nested calls hashing a
 * small block of memory.  THREADS (default 1, at most 64) threads share
 * the SAME TOTAL work: thread i does units i, i + THREADS, ...  So the
 * CPU time, and the number of samples a profiler should take at a given
 * rate, do not depend on THREADS; the wall time divides by THREADS when
 * as many CPUs are free.
 *
 * The calls are kept out of line, and the stack a sample sees is about
 * ten frames deep (thread start, worker, a recursive descent of six
 * frames, the hashing leaf), so that the profilers have a stack worth
 * unwinding.  The program prints a checksum that depends only on UNITS:
 * the same for every THREADS and every profiler.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 64
#define DESCENT 6            /* recursive frames above the leaf */
#define BLOCK_WORDS 512      /* 4 KiB hashed per leaf call */
#define ROUNDS_PER_UNIT 2000 /* leaf calls per unit */

#define NOINLINE __attribute__((noinline))

struct worker {
	pthread_t id;
	unsigned index, threads;
	unsigned long units;
	uint64_t sum;
};

static NOINLINE uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 33);
}

/* The leaf: hash @block, then stir it so that the next call differs. */
static NOINLINE uint64_t hash_block(uint64_t *block, uint64_t seed)
{
	uint64_t h = seed;

	for (unsigned i = 0; i < BLOCK_WORDS; i++)
		h = mix(h, block[i]);
	block[h % BLOCK_WORDS] ^= h;
	return h;
}

static NOINLINE uint64_t descend(uint64_t *block, uint64_t seed,
				 unsigned depth)
{
	uint64_t h;

	if (depth == 0)
		return hash_block(block, seed);
	h = descend(block, seed * 31 + depth, depth - 1);
	/* Work after the call keeps it from becoming a tail call. */
	return h ^ (h >> 17) ^ depth;
}

static NOINLINE uint64_t run_unit(unsigned long unit)
{
	uint64_t block[BLOCK_WORDS];
	uint64_t h = unit * 0x2545f4914f6cdd1dull + 1;

	for (unsigned i = 0; i < BLOCK_WORDS; i++)
		block[i] = h = mix(h, i);
	for (unsigned r = 0; r < ROUNDS_PER_UNIT; r++)
		h ^= descend(block, h + r, DESCENT);
	return h;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	uint64_t sum = 0;

	for (unsigned long u = w->index; u < w->units; u += w->threads)
		sum += run_unit(u); /* addition: independent of the order */
	w->sum = sum;
	return NULL;
}

static unsigned long parse(const char *s, unsigned long lo, unsigned long hi,
			   const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "cpu_workload: %s must be %lu to %lu, not '%s'\n",
			what, lo, hi, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static struct worker workers[MAX_THREADS];
	unsigned threads = 1;
	unsigned long units = 600;
	uint64_t sum = 0;

	if (argc > 3) {
		fprintf(stderr, "usage: cpu_workload [THREADS [UNITS]]\n");
		return 2;
	}
	if (argc > 1)
		threads = (unsigned)parse(argv[1], 1, MAX_THREADS, "THREADS");
	if (argc > 2)
		units = parse(argv[2], 1, 100000000, "UNITS");

	for (unsigned i = 0; i < threads; i++) {
		workers[i] = (struct worker){ .index = i, .threads = threads,
					      .units = units };
		if (i == 0)
			continue; /* the main thread is worker 0 */
		int rc = pthread_create(&workers[i].id, NULL, work,
					&workers[i]);
		if (rc) {
			fprintf(stderr, "cpu_workload: pthread_create: %s\n",
				strerror(rc));
			return 1;
		}
	}
	work(&workers[0]);
	for (unsigned i = 0; i < threads; i++) {
		if (i)
			pthread_join(workers[i].id, NULL);
		sum += workers[i].sum;
	}
	printf("cpu_workload: %u thread%s, %lu units, checksum %016" PRIx64
	       "\n", threads, threads == 1 ? "" : "s", units, sum);
	return 0;
}
