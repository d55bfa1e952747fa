/*
 * sm_idle.c - one thread works while three wait: idleness.
 *
 * main creates (from spawn_threads) two waiter threads and one worker.
 * Each waiter first burns 0.15 s of CPU in warm_up (so that its own tree
 * has samples), then waits on a condition variable until the worker is
 * done; main waits on it too.  The worker starts only once all three are
 * inside pthread_cond_wait, then burns 1 s of CPU in
 * burn_while_others_wait, then wakes them.  So every sample of
 * burn_while_others_wait is taken with exactly one thread working and
 * three blocked: its idleness is 3 per sample.
 *
 * The program does no I/O at all and prints nothing; exit status 0.
 */
#include <pthread.h>

#include "sm_common.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t all_waiting = PTHREAD_COND_INITIALIZER;
static pthread_cond_t finished = PTHREAD_COND_INITIALIZER;
static int waiting, done;

SM_NOINLINE static void warm_up(void)
{
	SM_BURN_CPU(0.15);
}

SM_NOINLINE static void burn_while_others_wait(void)
{
	SM_BURN_CPU(1.0);
}

/* Count in, then wait.  The count is raised under the lock, which
 * pthread_cond_wait releases only once the thread is inside it. */
SM_NOINLINE static void wait_until_done(void)
{
	pthread_mutex_lock(&lock);
	waiting++;
	pthread_cond_signal(&all_waiting);
	while (!done)
		pthread_cond_wait(&finished, &lock);
	pthread_mutex_unlock(&lock);
}

static void *waiter_main(void *arg)
{
	(void)arg;
	warm_up();
	wait_until_done();
	return NULL;
}

static void *worker_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	while (waiting < 3)
		pthread_cond_wait(&all_waiting, &lock);
	pthread_mutex_unlock(&lock);
	burn_while_others_wait();
	pthread_mutex_lock(&lock);
	done = 1;
	pthread_cond_broadcast(&finished);
	pthread_mutex_unlock(&lock);
	return NULL;
}

SM_NOINLINE static int spawn_threads(pthread_t *t)
{
	if (pthread_create(&t[0], NULL, waiter_main, NULL) ||
	    pthread_create(&t[1], NULL, waiter_main, NULL) ||
	    pthread_create(&t[2], NULL, worker_main, NULL))
		return -1;
	return 0;
}

int main(void)
{
	pthread_t t[3];

	if (spawn_threads(t))
		return 2;
	wait_until_done();
	for (int i = 0; i < 3; i++)
		if (pthread_join(t[i], NULL))
			return 3;
	return 0;
}
