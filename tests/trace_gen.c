/*
 * trace_gen.c - random serialised traces (see trace_gen.h).
 *
 * Every generated trace is valid: a thread returns only from an
 * activation it has pending, and never nests deeper than max_depth.
 * Event kinds are mixed so that every case of the definitions is hit
 * often: first reads, reads after own and foreign writes, kernel writes,
 * deep returns that fold partial counts into ancestors.
 */
#include "trace_gen.h"

#include <stdio.h>
#include <stdlib.h>

void gen_random_params(struct gen_params *p, uint64_t *state, unsigned events)
{
	p->threads = 2 + (unsigned)gen_below(state, 7);
	p->max_depth = 1 + (unsigned)gen_below(state, 20);
	p->events = events;
	/* Mostly a small span, so that accesses overlap a lot; sometimes one
	 * that crosses a 64 KiB shadow chunk boundary. */
	p->addr_span = gen_below(state, 4) ? 64 + gen_below(state, 512)
					   : 4096 + gen_below(state, 200000);
	p->addr_base = gen_below(state, 2) ? 0x100000 - p->addr_span / 2
					   : gen_below(state, 1u << 20);
	p->max_size = 1 + (unsigned)gen_below(state, 64);
	p->names = 1 + (unsigned)gen_below(state, 6);
	p->run_length = 1 + (unsigned)gen_below(state, 8);
}

void gen_trace(struct trace *t, const struct gen_params *p, uint64_t seed)
{
	uint64_t s = seed;
	unsigned *depth = calloc(p->threads, sizeof(*depth));
	uint32_t *dense = calloc(p->threads, sizeof(*dense));
	char name[16];
	unsigned cur = 0;

	if (!depth || !dense) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	/* Sparse, unordered thread ids: the replay must sort them. */
	for (unsigned i = 0; i < p->threads; i++)
		dense[i] = trace_thread(t, (uint64_t)(p->threads - i) * 7 + 3);
	for (unsigned i = 0; i < p->names; i++) {
		snprintf(name, sizeof(name), "r%u", i);
		trace_name(t, name);
	}
	for (unsigned n = 0; n < p->events; n++) {
		struct trace_event e = { 0 };

		if (gen_below(&s, p->run_length) == 0)
			cur = (unsigned)gen_below(&s, p->threads);
		e.thread = dense[cur];
		unsigned roll = (unsigned)gen_below(&s, 100);
		if (roll < 14 && depth[cur] < p->max_depth) {
			e.op = TRACE_CALL;
			e.name = (uint32_t)gen_below(&s, p->names);
			depth[cur]++;
		} else if (roll < 26 && depth[cur] > 0) {
			e.op = TRACE_RETURN;
			depth[cur]--;
		} else {
			roll = (unsigned)gen_below(&s, 100);
			e.op = roll < 50   ? TRACE_READ
			       : roll < 78 ? TRACE_WRITE
			       : roll < 88 ? TRACE_KREAD
					   : TRACE_KWRITE;
			e.size = 1 + gen_below(&s, p->max_size);
			e.addr = p->addr_base + gen_below(&s, p->addr_span);
		}
		trace_append(t, &e);
	}
	free(depth);
	free(dense);
}
