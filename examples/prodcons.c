/*
 * prodcons.c - a producer and a consumer passing N items through one
 * shared buffer, synchronised with two semaphores (Fig. 2 of the
 * multithreaded input-sensitive profiling paper).
 *
 * The producer thread writes each item into the buffer (one int: one
 * cell); the consumer thread, inside one activation of the region
 * "consumer", reads it N times.  The consumer reads the same single cell
 * over and over, so its read memory size is 1, but every time the producer
 * had written it since: its input really was N items.  With
 * TRMS_COST=events the profile has, for the consumer, exactly
 *
 *	trms = N, induced_thread = N, induced_external = 0
 *	rms  = 1 (the buffer's cells)
 *	cost = N (its N trms_read calls)
 *
 * N is argv[1] (default 1000).
 *
 *   trms run -c events -o prodcons.trms -- ./prodcons 1000
 *   trms report --tuples prodcons.trms
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "trms_weak.h"

static int buffer; /* the one shared buffer: a single cell */
static sem_t empty, full;
static long items;

static void *producer(void *arg)
{
	(void)arg;
	trms_thread_name("producer");
	for (long i = 1; i <= items; i++) {
		while (sem_wait(&empty) && errno == EINTR)
			;
		buffer = (int)i;
		trms_write(&buffer, sizeof(buffer));
		sem_post(&full);
	}
	return NULL;
}

/* @arg: the number of items, handed over in the pointer itself; the sum
 * comes back as the thread's result.  So the consumer reads no memory but
 * the buffer: built with `trms cc` and no annotation, where every load is
 * an input, its profile still says exactly the above. */
static void *consumer(void *arg)
{
	long n = (long)(intptr_t)arg, sum = 0;

	trms_thread_name("consumer");
	TRMS_REGION("consumer")
	{
		for (long i = 0; i < n; i++) {
			while (sem_wait(&full) && errno == EINTR)
				;
			trms_read(&buffer, sizeof(buffer));
			sum += buffer;
			sem_post(&empty);
		}
	}
	return (void *)(intptr_t)sum;
}

int main(int argc, char **argv)
{
	pthread_t threads[2];
	void *result;
	long sum;
	char *end;

	if (!TRMS_API_LOADED()) {
		fprintf(stderr, "prodcons: libtrms is not loaded: run "
				"`trms run -- %s`\n", argv[0]);
		return 2;
	}
	items = argc > 1 ? strtol(argv[1], &end, 10) : 1000;
	if (argc > 2 || items < 1 || items > 100000000 ||
	    (argc > 1 && *end)) {
		fprintf(stderr, "usage: prodcons [N]  (1 <= N <= 10^8)\n");
		return 2;
	}
	if (sem_init(&empty, 0, 1) || sem_init(&full, 0, 0)) {
		perror("prodcons: sem_init");
		return 1;
	}
	if (pthread_create(&threads[0], NULL, producer, NULL) ||
	    pthread_create(&threads[1], NULL, consumer,
			   (void *)(intptr_t)items)) {
		fprintf(stderr, "prodcons: cannot create threads\n");
		return 1;
	}
	pthread_join(threads[0], NULL);
	pthread_join(threads[1], &result);
	sum = (long)(intptr_t)result;
	if (sum != items * (items + 1) / 2) {
		fprintf(stderr, "prodcons: consumed %ld, expected %ld\n", sum,
			items * (items + 1) / 2);
		return 1;
	}
	printf("consumed %ld items (sum %ld)\n", items, sum);
	return 0;
}
