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
 * native build does.  Then an annotated region inside a function's
 * (annotated()).
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

/* An annotated region inside a function region, both measured: block
 * writes 4 cells and reads them back (its own writes: no input) and 2
 * cells it never touched; the function reads one more around it.  So
 * block's trms is 2 and annotated's 3. */
NOINLINE static void annotated(void)
{
	static int mine[4], theirs[2], more;

	trms_region_begin("block");
	trms_write(mine, sizeof(mine));
	trms_read(mine, sizeof(mine));
	trms_read(theirs, sizeof(theirs));
	trms_region_end("block");
	trms_read(&more, sizeof(more));
}

static void *run(void *arg)
{
	(void)arg;
	printf("%ld\n", descend(0));
	annotated();
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
