/*
 * bench_scalar.c - trms_read of 8 bytes, the annotation of a single
 * scalar load, inside one open region that has already seen the working
 * set (the steady state of a loop over a data structure).
 *
 * The loop walks a 64 KiB array of 8-byte slots, each holding the index of
 * the next slot, and annotates every load: once in address order (stride
 * 8, wrapping around) and once along a random cycle through all slots.
 * Baseline: the same walk without the annotation, measured in the same
 * run: the loads a program would make anyway.  The target (at most 10 ns
 * per call) is checked on the whole time per step, walk included, so the
 * baseline only tells how much of it is the program's own.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "trms.h"

#define SLOTS (64 * 1024 / sizeof(uint64_t))

struct walk {
	uint64_t *next; /* SLOTS slots, each the index of the next */
	const char *region;
};

static volatile uint64_t sink;

static void plain_body(void *arg, uint64_t iters)
{
	const uint64_t *next = ((struct walk *)arg)->next;
	uint64_t i = 0;

	for (; iters; iters--)
		i = next[i];
	sink = i;
}

static void annotated_body(void *arg, uint64_t iters)
{
	const uint64_t *next = ((struct walk *)arg)->next;
	uint64_t i = 0;

	for (; iters; iters--) {
		trms_read(&next[i], sizeof(next[i]));
		i = next[i];
	}
	sink = i;
}

/* Open the walk's region and read the whole working set in it, so that
 * every timed call is a repeated access, as in a long-running loop. */
static void annotated_setup(void *arg)
{
	struct walk *w = arg;

	bench_check(trms_region_begin(w->region), "trms_region_begin");
	bench_check(trms_read(w->next, SLOTS * sizeof(*w->next)), "trms_read");
}

static void annotated_teardown(void *arg)
{
	bench_check(trms_region_end(((struct walk *)arg)->region),
		    "trms_region_end");
}

static uint64_t *slots(void)
{
	uint64_t *next = aligned_alloc(4096, SLOTS * sizeof(*next));

	if (!next) {
		fprintf(stderr, "bench: out of memory\n");
		exit(1);
	}
	return next;
}

static uint64_t *sequential_walk(void)
{
	uint64_t *next = slots();

	for (size_t i = 0; i < SLOTS; i++)
		next[i] = (i + 1) % SLOTS;
	return next;
}

/* One cycle through every slot, in random order (Sattolo's algorithm),
 * with a fixed seed so every run walks the same way. */
static uint64_t *random_walk(void)
{
	uint64_t *order = slots(), *next = slots();
	uint64_t x = 88172645463325252ull; /* xorshift64 state */

	for (size_t i = 0; i < SLOTS; i++)
		order[i] = i;
	for (size_t i = SLOTS - 1; i > 0; i--) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		size_t j = x % i;
		uint64_t tmp = order[i];
		order[i] = order[j];
		order[j] = tmp;
	}
	for (size_t i = 0; i < SLOTS; i++)
		next[order[i]] = order[(i + 1) % SLOTS];
	free(order);
	return next;
}

int main(void)
{
	bench_require_active();
	struct walk seq = { sequential_walk(), "sequential" };
	struct walk rnd = { random_walk(), "random" };
	struct bench_case cases[] = {
		{ .name = "sequential", .body = plain_body, .arg = &seq },
		{ .name = "sequential annotated", .body = annotated_body,
		  .setup = annotated_setup, .teardown = annotated_teardown,
		  .arg = &seq },
		{ .name = "random", .body = plain_body, .arg = &rnd },
		{ .name = "random annotated", .body = annotated_body,
		  .setup = annotated_setup, .teardown = annotated_teardown,
		  .arg = &rnd },
	};

	bench_run(cases, 4);

	static const char *const what[] = {
		"8-byte trms_read, stride-8 walk",
		"8-byte trms_read, random walk",
	};
	struct bench_table t;

	bench_table_init(&t, "scalar read: trms_read of 8 bytes in a 64 KiB "
			     "working set");
	for (int k = 0; k < 2; k++) {
		const struct bench_case *plain = &cases[2 * k];
		const struct bench_case *annotated = &cases[2 * k + 1];
		double per_call = bench_case_median(annotated);
		bench_table_add(&t, what[k], per_call,
				bench_case_median(plain), "ns",
				bench_ratio_median(annotated, plain),
				"<= 10 ns per call",
				bench_at_most(per_call, 10));
	}
	bench_table_print(&t, BENCH_METHOD "\n"
			  "measured: ns per step of the annotated walk; "
			  "baseline: the same walk, not annotated");
	free(seq.next);
	free(rnd.next);
	return 0;
}
