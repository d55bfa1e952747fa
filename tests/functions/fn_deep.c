/*
 * fn_deep.c - a recursion a million deep, built with `trms cc` (functions
 * only) for tests/functions/functions.sh: the library's stack of
 * activations must grow as deep as the program's, and every activation
 * close exactly.
 *
 * descend(level) annotates a read of cell level % CELLS of a global array
 * and calls itself until DEPTH levels are open, on a thread of its own
 * with a stack large enough for them (no limit of the caller's to raise).
 * An activation with m levels at and below it (its own included) reads
 * min(m, CELLS) distinct cells, each first by a read: its trms is that.
 * So descend's tuples are 1 .. CELLS-1 once each and CELLS for the other
 * DEPTH - CELLS + 1 activations.  Prints the sum of the levels, as the
 * native build does.
 */
#include <pthread.h>
#include <stdio.h>

#include "trms.h"

#define NOINLINE __attribute__((noinline))
#define DEPTH 1000000
#define CELLS 8
#define STACK_BYTES ((size_t)512 << 20)

static int cells[CELLS];
static volatile long sink;

NOINLINE static long descend(long level)
{
	trms_read(&cells[level % CELLS], sizeof(int));
	if (level + 1 == DEPTH)
		return level;
	/* Not a tail call: the frame stays open below the next. */
	long below = descend(level + 1);
	sink = below;
	return below + level;
}

static void *run(void *arg)
{
	(void)arg;
	printf("%ld\n", descend(0));
	return NULL;
}

int main(void)
{
	pthread_attr_t attr;
	pthread_t thread;

	if (pthread_attr_init(&attr) ||
	    pthread_attr_setstacksize(&attr, STACK_BYTES) ||
	    pthread_create(&thread, &attr, run, NULL))
		return 1;
	pthread_join(thread, NULL);
	return 0;
}
