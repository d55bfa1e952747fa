/*
 * fn_handoff.c - data handed from one thread to another, run for real
 * (not traced, so the threads run at once), for `trms cc --trms-full`
 * (tests/functions/functions.sh): a producer thread fills an array of
 * 20,000 ints of its own (80,000 bytes: two 64 KiB chunks of memory and
 * more) and a consumer sums it, ROUNDS times, the two taking turns on two
 * semaphores.  The producer's first fill finds memory no other thread has
 * touched (its writes take its current stamp, src/engine/owners.h); the
 * consumer's first read makes the chunks shared.  Every sum reads 20,000
 * cells that the producer wrote since the consumer last read them: each
 * activation of consume has trms = rms = 20,000 (K = 4), all induced by
 * another thread.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))
#define INTS 20000
#define ROUNDS 20

static int *data;
static sem_t filled, summed;

NOINLINE void produce(int *a, int round)
{
	for (int i = 0; i < INTS; i++)
		a[i] = i + round;
}

NOINLINE long consume(const int *a)
{
	long s = 0;

	for (int i = 0; i < INTS; i++)
		s += a[i];
	return s;
}

static void *producer(void *arg)
{
	(void)arg;
	data = malloc(INTS * sizeof(int));
	if (!data)
		abort();
	for (int r = 0; r < ROUNDS; r++) {
		if (r)
			sem_wait(&summed);
		produce(data, r);
		sem_post(&filled);
	}
	return NULL;
}

int main(void)
{
	pthread_t t;
	long total = 0;

	sem_init(&filled, 0, 0);
	sem_init(&summed, 0, 0);
	if (pthread_create(&t, NULL, producer, NULL))
		return 1;
	for (int r = 0; r < ROUNDS; r++) {
		sem_wait(&filled);
		total += consume(data);
		sem_post(&summed);
	}
	pthread_join(t, NULL);
	printf("%ld\n", total);
	return 0;
}
