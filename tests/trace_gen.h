/*
 * trace_gen.h - random serialised traces for differential tests.
 */
#ifndef TRMS_TRACE_GEN_H
#define TRMS_TRACE_GEN_H

#include <stdint.h>

#include "trace.h"

struct gen_params {
	unsigned threads;    /* 1..: trace threads */
	unsigned max_depth;  /* deepest nesting per thread */
	unsigned events;     /* how many events to generate */
	uint64_t addr_base;  /* accesses fall in [base, base + span) */
	uint64_t addr_span;
	unsigned max_size;   /* access sizes are 1..max_size bytes */
	unsigned names;      /* distinct region names */
	unsigned run_length; /* mean number of events before another
				thread's turn */
};

/* A small, fast, seedable generator (splitmix64). */
static inline uint64_t gen_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline uint64_t gen_below(uint64_t *state, uint64_t n)
{
	return n ? gen_next(state) % n : 0;
}

/* Append a random valid trace to @t (which must be freshly initialised). */
void gen_trace(struct trace *t, const struct gen_params *p, uint64_t seed);

/* Random parameters in the ranges the issue asks for: 2-8 threads,
 * nesting to 20, sizes 1-64, overlapping unaligned ranges. */
void gen_random_params(struct gen_params *p, uint64_t *state,
		       unsigned events);

#endif
