/*
 * nest_prog.c - regions nested at random, for the partition checks of
 * tests/selection/selection.sh: every region may open inside any other
 * (itself too), so that each part of a partition meets activations of
 * other parts' regions around and inside its own.
 *
 * Usage: nest_prog SEED THREADS ROUNDS.  Each thread walks its own random
 * tree of activations over a buffer of its own, reading and writing; the
 * threads form a ring through a mailbox: in each round thread k waits
 * for its turn, reads what thread k-1 wrote there and writes its own
 * (inside regions too), then passes the turn on.  Every access to shared
 * memory is ordered by the turns, so a run's activations, their inputs
 * and (with costs in events) their costs are the same every time.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

#include <trms.h>

#define NAMES 12
#define MAX_THREADS 8

static const char *const names[NAMES] = {
	"parse", "scan", "hash_block", "outer", "lookup", "emit",
	"sort_run", "merge", "fetch", "decode", "store", "flush",
};

static char own[MAX_THREADS][1 << 14];
static char mailbox[1 << 12];
static sem_t turn[MAX_THREADS];
static int threads, rounds;
static unsigned long seed;

static unsigned long next(unsigned long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Accesses fall in [buf, buf + len), len above 300. */
static void walk(unsigned long *s, char *buf, unsigned long len, int depth)
{
	for (unsigned long i = 0, n = next(s) % 4; i < n; i++) {
		unsigned long op = next(s) % 5;
		if (op < 2 && depth < 7) {
			const char *name = names[next(s) % NAMES];
			trms_region_begin(name);
			walk(s, buf, len, depth + 1);
			trms_region_end(name);
		} else if (op == 2) {
			trms_write(buf + next(s) % (len - 256),
				   1 + next(s) % 256);
		} else {
			trms_read(buf + next(s) % (len - 300), 1 + next(s) % 300);
		}
	}
}

static void *run(void *arg)
{
	int k = (int)(long)arg;
	unsigned long s = 0x9e3779b97f4a7c15ull * (unsigned long)(k + 1);

	s ^= seed * 0xbf58476d1ce4e5b9ull;
	s |= 1;
	for (int r = 0; r < rounds; r++) {
		walk(&s, own[k], sizeof(own[k]), 0);
		sem_wait(&turn[k]);
		trms_region_begin(names[next(&s) % NAMES]);
		trms_read(mailbox, sizeof(mailbox));
		walk(&s, mailbox, sizeof(mailbox), 1);
		trms_write(mailbox + (unsigned long)k * 512, 512);
		trms_region_end(NULL);
		sem_post(&turn[(k + 1) % threads]);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[MAX_THREADS];

	if (argc != 4)
		return 2;
	seed = strtoul(argv[1], NULL, 10);
	threads = atoi(argv[2]);
	rounds = atoi(argv[3]);
	if (threads < 1 || threads > MAX_THREADS)
		return 2;
	for (int k = 0; k < threads; k++)
		sem_init(&turn[k], 0, k == 0);
	for (int k = 1; k < threads; k++)
		if (pthread_create(&t[k], NULL, run, (void *)(long)k))
			return 1;
	run((void *)0L);
	for (int k = 1; k < threads; k++)
		pthread_join(t[k], NULL);
	return 0;
}
