/*
 * fn_threads.c - threads that hand each other data, for `trms cc
 * --trms-full` and TRMS_TRACE (tests/functions/functions.sh): WORKERS
 * threads take turns, under a mutex, reading the whole shared board and
 * rewriting a part of it, ROUNDS times each; a thread's read of a cell
 * another thread wrote since its last access is thread-induced input.
 * What each activation counts depends on the interleaving, so the check
 * is that the profile holds what the definitions give for the trace of
 * the same run (trace_check.c).
 */
#include <pthread.h>
#include <stdio.h>

#define NOINLINE __attribute__((noinline))
#define WORKERS 3
#define ROUNDS 50
#define CELLS 64

static int board[CELLS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

NOINLINE long look(const int *b, int n)
{
	long s = 0;

	for (int i = 0; i < n; i++)
		s += b[i];
	return s;
}

NOINLINE void mark(int *b, int from, int n, int v)
{
	for (int i = from; i < from + n; i++)
		b[i] = v;
}

static void *worker(void *arg)
{
	int id = (int)(long)arg;
	long s = 0;

	for (int r = 0; r < ROUNDS; r++) {
		pthread_mutex_lock(&lock);
		s += look(board, CELLS);
		mark(board, (id * 16 + r) % (CELLS - 8), 8, id + r);
		pthread_mutex_unlock(&lock);
	}
	return (void *)s;
}

int main(void)
{
	pthread_t t[WORKERS];

	mark(board, 0, CELLS, 1);
	for (long i = 0; i < WORKERS; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i))
			return 1;
	for (int i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
	printf("done %ld\n", look(board, CELLS) > 0 ? 1L : 0L);
	return 0;
}
