/*
 * sel_prog.c - a deterministic annotated program for the tests of
 * activation sampling and partitions (selection.sh): whatever the
 * scheduling, each thread's accesses and the order of other threads'
 * writes to what it reads are the same in every run, so that a run that
 * measures every activation and one that measures some can be compared
 * activation by activation.
 *
 *   sel_prog single ROUNDS    twelve regions, nested, reading their own
 *                             data, data written outside any region,
 *                             and data read() from a pipe
 *   sel_prog threads ROUNDS   a producer thread fills a buffer, a
 *                             consumer reads all of it in a region, in
 *                             strict turns: every read thread-induced
 *   sel_prog flat ROUNDS      one region, no nesting (for the fraction
 *                             measured)
 *   sel_prog wrapped ROUNDS   the same inside one activation of "outer"
 *                             that lasts the whole run (as main's does
 *                             in a program built with trms cc)
 *   sel_prog costly ROUNDS    one region that sums 1 Mi ints read as one
 *                             range: measuring it costs more than its
 *                             work, a millisecond or more (for the
 *                             budget)
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trms.h"

#define CELLS 256

static int data[CELLS];
static const char *const names[] = {
	"parse", "lex", "hash", "sort", "merge", "scan",
	"emit", "lookup", "insert", "balance", "flush", "check",
};
#define NAMES (sizeof(names) / sizeof(names[0]))

static void reads(int from, int n)
{
	for (int i = 0; i < n; i++)
		trms_read(&data[(from + i) % CELLS], sizeof(int));
}

/* Region @k of round @r: reads that depend on both, and a nested region
 * every third one. */
static void region(unsigned k, long r, int depth)
{
	trms_region_begin(names[k]);
	reads((int)(k * 7 + r) % CELLS, 1 + (int)((r + k) % 23));
	if (depth < 3 && (r + k) % 3 == 0)
		region((k + 5) % NAMES, r + 1, depth + 1);
	trms_read(&data[k], sizeof(int) * (1 + (size_t)(r % 5)));
	trms_region_end(names[k]);
}

static void single(long rounds)
{
	int fds[2];
	static char buf[64];

	if (pipe(fds))
		exit(2);
	for (long r = 0; r < rounds; r++) {
		region((unsigned)(r % NAMES), r, 0);
		/* Written outside every region: another region reads it
		 * later as its own thread's data, not as input. */
		trms_write(&data[r % CELLS], sizeof(int));
		if (r % 4 == 0) {
			/* Fresh data from the kernel, then read whole. */
			if (write(fds[1], buf, sizeof(buf)) != sizeof(buf) ||
			    read(fds[0], buf, sizeof(buf)) != sizeof(buf))
				exit(2);
			trms_region_begin("input");
			trms_read(buf, 1 + (size_t)(r % sizeof(buf)));
			trms_region_end("input");
		}
	}
	close(fds[0]);
	close(fds[1]);
}

static sem_t filled, drained;
static long shared_rounds;
static int shared[CELLS];

static void *producer(void *arg)
{
	(void)arg;
	for (long r = 0; r < shared_rounds; r++) {
		sem_wait(&drained);
		int n = 1 + (int)(r % 97);
		trms_region_begin("produce");
		for (int i = 0; i < n; i++) {
			shared[i] = (int)r;
			trms_write(&shared[i], sizeof(int));
		}
		trms_region_end("produce");
		sem_post(&filled);
	}
	return NULL;
}

static void threads(long rounds)
{
	pthread_t p;

	shared_rounds = rounds;
	sem_init(&filled, 0, 0);
	sem_init(&drained, 0, 1);
	if (pthread_create(&p, NULL, producer, NULL))
		exit(2);
	for (long r = 0; r < rounds; r++) {
		sem_wait(&filled);
		int n = 1 + (int)(r % 97);
		trms_region_begin("consume");
		/* Every cell the producer just wrote, once: induced. */
		trms_read(shared, sizeof(int) * (size_t)n);
		/* Three cells of its own: each activation's trms tells how
		 * many of its reads were induced. */
		trms_region_begin("tally");
		reads((int)(r % CELLS), 3);
		trms_region_end("tally");
		trms_region_end("consume");
		sem_post(&drained);
	}
	pthread_join(p, NULL);
}

static void flat(long rounds)
{
	for (long r = 0; r < rounds; r++) {
		trms_region_begin("flat");
		reads((int)(r % CELLS), 1 + (int)(r % 17));
		trms_region_end("flat");
	}
}

static void costly(long rounds)
{
	static unsigned big[1 << 20];
	unsigned total = 0;

	for (size_t i = 0; i < sizeof(big) / sizeof(*big); i++)
		big[i] = (unsigned)i * 2654435761u;
	for (long r = 0; r < rounds; r++) {
		trms_region_begin("costly");
		trms_read(big, sizeof(big));
		for (size_t i = 0; i < sizeof(big) / sizeof(*big); i++)
			total += big[i] >> (r & 7);
		trms_region_end("costly");
	}
	printf("%u\n", total);
}

int main(int argc, char **argv)
{
	long rounds = argc > 2 ? atol(argv[2]) : 1000;

	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "single"))
		single(rounds);
	else if (!strcmp(argv[1], "threads"))
		threads(rounds);
	else if (!strcmp(argv[1], "flat"))
		flat(rounds);
	else if (!strcmp(argv[1], "wrapped")) {
		trms_region_begin("outer");
		flat(rounds);
		trms_region_end("outer");
	} else if (!strcmp(argv[1], "costly"))
		costly(rounds);
	else
		return 2;
	return 0;
}
