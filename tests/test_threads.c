/*
 * test_threads.c - real threads through the public API: a producer and a
 * consumer handing items through one buffer, many threads hammering shared
 * and private buffers, and thread exit.  Built twice: as is, and with
 * ThreadSanitizer over the library too (the tsan suite).
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "trms.h"

#include "runtime/thread.h"
#include "suite_main.h"

/* Per region name, what the observer saw; activations of all threads. */
struct seen {
	atomic_ulong activations;
	atomic_ulong violations; /* trms < rms, or induced > trms */
	atomic_ulong trms_sum, rms_sum, induced_thread_sum;
	atomic_ulong last_trms;
};

static struct seen consumer_seen, worker_seen, leaf_seen, exit_seen;

static struct seen *seen_for(const char *name)
{
	if (!strcmp(name, "consumer"))
		return &consumer_seen;
	if (!strcmp(name, "worker"))
		return &worker_seen;
	if (!strcmp(name, "leaf"))
		return &leaf_seen;
	if (!strcmp(name, "left_open"))
		return &exit_seen;
	return NULL;
}

static void observe(struct trms_thread *t, const struct activation *a)
{
	struct seen *s = seen_for(region_name(a->region));

	(void)t;
	if (!s)
		return;
	atomic_fetch_add(&s->activations, 1);
	if (a->trms < a->rms ||
	    a->induced_thread + a->induced_external > a->trms)
		atomic_fetch_add(&s->violations, 1);
	atomic_fetch_add(&s->trms_sum, a->trms);
	atomic_fetch_add(&s->rms_sum, a->rms);
	atomic_fetch_add(&s->induced_thread_sum, a->induced_thread);
	atomic_store(&s->last_trms, a->trms);
}

static void setup(void)
{
	memset(&consumer_seen, 0, sizeof(consumer_seen));
	memset(&worker_seen, 0, sizeof(worker_seen));
	memset(&leaf_seen, 0, sizeof(leaf_seen));
	memset(&exit_seen, 0, sizeof(exit_seen));
	runtime_observer = observe;
}

/* Paper Fig. 2: one buffer, a producer filling it, a consumer reading
 * it; each item is new input for the consumer. */
#define ITEMS 2000

static struct {
	sem_t full, empty;
	int buffer;
	long sum;
} channel;

static void *producer(void *arg)
{
	(void)arg;
	for (int i = 1; i <= ITEMS; i++) {
		sem_wait(&channel.empty);
		channel.buffer = i;
		trms_write(&channel.buffer, sizeof(channel.buffer));
		sem_post(&channel.full);
	}
	return NULL;
}

static void *consumer(void *arg)
{
	(void)arg;
	trms_region_begin("consumer");
	for (int i = 0; i < ITEMS; i++) {
		sem_wait(&channel.full);
		trms_read(&channel.buffer, sizeof(channel.buffer));
		channel.sum += channel.buffer;
		sem_post(&channel.empty);
	}
	trms_region_end("consumer");
	return NULL;
}

START_TEST(producer_consumer_trms_is_n)
{
	for (int run = 0; run < 5; run++) {
		pthread_t p, c;
		memset(&consumer_seen, 0, sizeof(consumer_seen));
		sem_init(&channel.full, 0, 0);
		sem_init(&channel.empty, 0, 1);
		channel.sum = 0;
		ck_assert_int_eq(pthread_create(&c, NULL, consumer, NULL), 0);
		ck_assert_int_eq(pthread_create(&p, NULL, producer, NULL), 0);
		pthread_join(p, NULL);
		pthread_join(c, NULL);
		ck_assert_int_eq(channel.sum, (long)ITEMS * (ITEMS + 1) / 2);
		ck_assert_uint_eq(atomic_load(&consumer_seen.activations), 1);
		ck_assert_uint_eq(atomic_load(&consumer_seen.trms_sum), ITEMS);
		ck_assert_uint_eq(atomic_load(&consumer_seen.rms_sum), 1);
		ck_assert_uint_eq(
			atomic_load(&consumer_seen.induced_thread_sum), ITEMS);
		sem_destroy(&channel.full);
		sem_destroy(&channel.empty);
	}
}
END_TEST

/* Many threads, each with a private buffer and all sharing one, nested
 * regions, reads and writes of overlapping ranges. */
#define WORKERS 8
#define ROUNDS 3000

static char shared_buffer[4096];
static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;

static void *hammer(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;
	char private_buffer[1024];

	memset(private_buffer, 0, sizeof(private_buffer));
	for (int round = 0; round < ROUNDS; round++) {
		unsigned r = rand_r(&seed);
		size_t off = r % 1000, len = 1 + (r >> 10) % 24;
		trms_region_begin("worker");
		trms_read(private_buffer + off, len);
		trms_write(private_buffer + (off + 7) % 1000, len);
		pthread_mutex_lock(&shared_lock);
		trms_region_begin("leaf");
		if (r & 1) {
			shared_buffer[off]++;
			trms_write(shared_buffer + off, len);
		}
		trms_read(shared_buffer + (off * 3) % 4000, len + 3);
		trms_region_end("leaf");
		pthread_mutex_unlock(&shared_lock);
		trms_read(private_buffer + off, len);
		trms_region_end("worker");
	}
	return NULL;
}

START_TEST(many_threads_keep_invariants)
{
	pthread_t threads[WORKERS];

	for (uintptr_t i = 0; i < WORKERS; i++)
		ck_assert_int_eq(
			pthread_create(&threads[i], NULL, hammer,
				       (void *)(i + 1)),
			0);
	/* The profile is written while the workers record into it. */
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(trms_flush(), 0);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(threads[i], NULL);
	ck_assert_uint_eq(atomic_load(&worker_seen.activations),
			  WORKERS * ROUNDS);
	ck_assert_uint_eq(atomic_load(&leaf_seen.activations),
			  WORKERS * ROUNDS);
	ck_assert_uint_eq(atomic_load(&worker_seen.violations), 0);
	ck_assert_uint_eq(atomic_load(&leaf_seen.violations), 0);
	/* Other threads' writes to the shared buffer did reach the
	 * leaves as induced input. */
	ck_assert_uint_gt(atomic_load(&leaf_seen.induced_thread_sum), 0);
}
END_TEST

static void *exit_with_open_region(void *arg)
{
	static char data[32];

	trms_region_begin("left_open");
	trms_read(data, sizeof(data));
	if (arg)
		pthread_exit(NULL);
	return NULL;
}

START_TEST(thread_exit_closes_open_regions)
{
	pthread_t t;

	for (uintptr_t how = 0; how < 2; how++) {
		ck_assert_int_eq(pthread_create(&t, NULL, exit_with_open_region,
						(void *)how),
				 0);
		pthread_join(t, NULL);
	}
	ck_assert_uint_eq(atomic_load(&exit_seen.activations), 2);
	ck_assert_uint_eq(atomic_load(&exit_seen.last_trms), 8);
}
END_TEST

static void *named(void *arg)
{
	trms_thread_name(arg);
	return NULL;
}

START_TEST(threads_are_numbered_and_named)
{
	pthread_t t;
	struct trms_thread *th;
	bool found = false;

	ck_assert_int_eq(pthread_create(&t, NULL, named, "reader thread"), 0);
	pthread_join(t, NULL);
	pthread_mutex_lock(&runtime.lock);
	cds_list_for_each_entry(th, &runtime.threads, link) {
		if (!strcmp(th->name, "reader thread")) {
			found = true;
			ck_assert(th->dead);
			ck_assert_uint_gt(th->ordinal, 0);
		}
	}
	th = cds_list_first_entry(&runtime.threads, struct trms_thread, link);
	ck_assert_uint_eq(th->ordinal, 0);
	pthread_mutex_unlock(&runtime.lock);
	ck_assert(found);
}
END_TEST

static Suite *threads_suite(void)
{
	Suite *s = suite_create("threads");
	TCase *tc = tcase_create("threads");

	tcase_set_timeout(tc, 300);
	tcase_add_checked_fixture(tc, setup, NULL);
	SUITE_TESTS(tc, producer_consumer_trms_is_n,
		    many_threads_keep_invariants,
		    thread_exit_closes_open_regions,
		    threads_are_numbered_and_named);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(threads_suite());
}
