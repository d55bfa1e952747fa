/*
 * element_loop.c - a hot loop annotated element by element, the way a
 * user instruments a data structure: every call of sum() is a region
 * and every element it reads a trms_read.  Built twice by
 * bench/production.sh: against trms.h, and with -DNATIVE against a
 * header whose annotations are empty static inline functions (what the
 * program costs with them compiled out).  With THREADS=2 (argv[2]) two
 * threads run it, each on arrays of its own, and every so many calls
 * each sums a block the other wrote (trms_write per element): input
 * from another thread.
 *
 * Usage: element_loop ROUNDS [THREADS]  - prints the nanoseconds per
 * annotated element of the whole run (wall clock, all threads).  Built
 * with -DWORK=N, each element's work has N more multiply-xor steps: 0 (the
 * default) is a loop of a few instructions, under a nanosecond an
 * element; 8, about 4 ns.  With -DCELLS=N an element is a record of N
 * 4-byte words, read (and written) with one call of its whole size, its
 * work the sum of its words: 64 or more makes every call a range the
 * library times exactly (docs/cost.md), and with enough work a record
 * (bench/element.sh: 256 words, WORK=32) costs in ns are resolved.
 * With -DSTANDIN the annotations are those of bench/element_standin.h:
 * the least any inline check can cost, for comparison.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifdef NATIVE
static inline int trms_region_begin(const char *n) { (void)n; return 0; }
static inline int trms_region_end(const char *n) { (void)n; return 0; }
static inline int trms_read(const void *a, size_t s) { (void)a; (void)s; return 0; }
static inline int trms_write(const void *a, size_t s) { (void)a; (void)s; return 0; }
#elif defined(STANDIN)
#include "element_standin.h"
#else
#include <trms.h>
#endif

/* Records (CELLS > 1) are fewer, to keep the arrays small. */
#define ELEMENTS (CELLS > 1 ? 1u << 13 : 1u << 16)
#ifndef WORK
#define WORK 0
#endif
#ifndef CELLS
#define CELLS 1
#endif
#define HANDOFF (1u << 10)
#define HANDOFF_EVERY 64

struct element {
	uint32_t word[CELLS];
};

struct worker {
	struct element *data; /* its own, ELEMENTS of them */
	struct element *out;  /* the block it hands over, per element written */
	struct worker *other;
	unsigned long rounds;
	uint64_t elements;
	uint64_t result;
	pthread_barrier_t *start;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The annotated region: an input of n elements, read one by one. */
static __attribute__((noinline)) uint64_t sum(const struct element *a,
					      size_t n)
{
	uint64_t s = 0;

	trms_region_begin("sum");
	for (size_t i = 0; i < n; i++) {
		trms_read(&a[i], sizeof(a[i]));
		uint64_t v = 0;
		for (unsigned c = 0; c < CELLS; c++)
			v += a[i].word[c];
		v *= (uint64_t)(i | 1);
		for (unsigned k = 0; k < WORK; k++)
			v = (v * 0x9e3779b97f4a7c15ull) ^ (v >> 29);
		s += v;
	}
	trms_region_end("sum");
	return s;
}

/* A block for the other thread, written element by element. */
static __attribute__((noinline)) void fill(struct element *out,
					  uint64_t seed)
{
	trms_region_begin("fill");
	for (size_t i = 0; i < HANDOFF; i++) {
		for (unsigned c = 0; c < CELLS; c++)
			out[i].word[c] = (uint32_t)(seed * 2654435761u + i + c);
		trms_write(&out[i], sizeof(out[i]));
	}
	trms_region_end("fill");
}

static void *run(void *arg)
{
	struct worker *w = arg;
	uint64_t x = (uintptr_t)w | 1, s = 0, elements = 0;

	if (w->start)
		pthread_barrier_wait(w->start);
	for (unsigned long r = 0; r < w->rounds; r++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* Sizes from 16 to 4096 elements, spread over the array. */
		size_t n = (size_t)16 << (x % 9);
		size_t at = (x >> 8) % (ELEMENTS - n);
		s += sum(w->data + at, n);
		elements += n;
		if (w->other && r % HANDOFF_EVERY == 0) {
			fill(w->out, s);
			s += sum(w->other->out, HANDOFF);
			elements += 2 * HANDOFF;
		}
	}
	w->result = s;
	w->elements = elements;
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000;
	int threads = argc > 2 ? atoi(argv[2]) : 1;
	struct worker w[2] = { { 0 } };
	pthread_barrier_t start;
	pthread_t other;

	if (threads < 1 || threads > 2)
		return 2;
	for (int i = 0; i < threads; i++) {
		/* Each thread's memory its own, megabytes apart. */
		/* Its array, and the block it hands over half-way up: at
		 * least a megabyte apart. */
		size_t half = ELEMENTS * sizeof(struct element);

		half = half < (1u << 20) ? 1u << 20 : half;
		w[i].data = aligned_alloc(1 << 20, 2 * half);
		if (!w[i].data)
			return 1;
		w[i].out = w[i].data + half / sizeof(struct element);
		for (size_t k = 0; k < ELEMENTS; k++)
			for (unsigned c = 0; c < CELLS; c++)
				w[i].data[k].word[c] =
					(uint32_t)(k * 40503u + c + (unsigned)i);
		for (size_t k = 0; k < HANDOFF; k++)
			for (unsigned c = 0; c < CELLS; c++)
				w[i].out[k].word[c] = 0;
		w[i].rounds = rounds;
	}
	if (threads == 2) {
		w[0].other = &w[1];
		w[1].other = &w[0];
		pthread_barrier_init(&start, NULL, 2);
		w[0].start = w[1].start = &start;
	}
	uint64_t t0 = now_ns();
	if (threads == 2 && pthread_create(&other, NULL, run, &w[1]))
		return 1;
	run(&w[0]);
	if (threads == 2)
		pthread_join(other, NULL);
	uint64_t took = now_ns() - t0;
	uint64_t elements = w[0].elements + w[1].elements;
	printf("%.4f %llu\n", (double)took / (double)elements,
	       (unsigned long long)((w[0].result ^ w[1].result) & 0xff));
	return 0;
}
