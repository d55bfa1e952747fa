/*
 * gate_prog.c - the annotation API's inline forms (trms.h), for
 * tests/gate/gate.sh:
 *
 *   loop N      N activations of region "loop", each reading 8 cells one
 *               by one and writing one;
 *   nested      activations 40 deep (deeper than the inline stack), a
 *               region called inside itself, an end that names another
 *               region than the innermost (refused), all ended;
 *   spans N     N activations of region "span", each reading 8 cells,
 *               with reads of other cells before and after it in the
 *               same function: a compiler that kept the gate's flags in
 *               a register across the begin would skip the reads inside;
 * then prints "depth T B rc R": the inline stack's top and base (0 0:
 * nothing left open) and what the mismatched end returned.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trms.h>

static int cells[64];

static void loop(long n)
{
	for (long i = 0; i < n; i++) {
		trms_region_begin("loop");
		for (int k = 0; k < 8; k++)
			trms_read(&cells[(i + k) % 64], sizeof(int));
		trms_write(&cells[i % 64], sizeof(int));
		trms_region_end("loop");
	}
}

static void spans(long n)
{
	for (long i = 0; i < n; i++) {
		for (int k = 0; k < 4; k++)
			trms_read(&cells[48 + k], sizeof(int));
		trms_region_begin("span");
		for (int k = 0; k < 8; k++)
			trms_read(&cells[(i + k) % 32], sizeof(int));
		trms_region_end("span");
		for (int k = 0; k < 4; k++)
			trms_read(&cells[52 + k], sizeof(int));
	}
}

static void deep(int level)
{
	trms_region_begin("deep");
	trms_read(&cells[level % 64], sizeof(int));
	if (level < 40)
		deep(level + 1);
	trms_region_end("deep");
}

static void recurse(int level)
{
	TRMS_SCOPED_REGION("again");
	trms_read(&cells[level], sizeof(int));
	if (level < 5)
		recurse(level + 1);
}

int main(int argc, char **argv)
{
	int rc = 0;

	if (argc == 3 && !strcmp(argv[1], "loop")) {
		loop(atol(argv[2]));
	} else if (argc == 3 && !strcmp(argv[1], "spans")) {
		spans(atol(argv[2]));
	} else if (argc == 2 && !strcmp(argv[1], "nested")) {
		for (int round = 0; round < 200; round++) {
			deep(0);
			recurse(0);
		}
		trms_region_begin("outer");
		rc = trms_region_end("inner");
		trms_region_end("outer");
	} else {
		return 2;
	}
#ifndef TRMS_NO_INLINE
	printf("depth %lu %lu rc %d\n", trms_thread_gate_v1_.top,
	       trms_thread_gate_v1_.base, rc);
#else
	printf("depth 0 0 rc %d\n", rc);
#endif
	return 0;
}
