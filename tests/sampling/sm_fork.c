/*
 * sm_fork.c - processes and threads coming and going while sampled.
 *
 *   sm_fork fork      a companion thread burns CPU all along; main burns
 *                     0.4 s in before_fork, then forks.  The child burns
 *                     0.6 s in child_burn and exits 0; the parent burns
 *                     0.6 s in parent_burn, stops its companion, waits for
 *                     the child and exits with 0, or 4 if the child did
 *                     not exit 0.  Prints "child ok" then.
 *   sm_fork forks N   a companion thread burns CPU all along; main forks
 *                     N children one after another, each of which exits
 *                     at once (_exit), and waits for each.  Prints
 *                     "forks N"; exit 0 (3 if a fork failed).
 *   sm_fork threads   500 threads, 25 at a time, each burning 3 ms of CPU
 *                     in thread_burn and then ending; each batch is
 *                     joined before the next starts.  Prints
 *                     "threads 500"; exit 0 (3 if a thread could not be
 *                     created or joined).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sm_common.h"

static atomic_int stop;

SM_NOINLINE static void companion_burn(void)
{
	while (!atomic_load(&stop))
		SM_SPIN(20000);
}

static void *companion(void *arg)
{
	(void)arg;
	companion_burn();
	return NULL;
}

SM_NOINLINE static void before_fork(void)
{
	SM_BURN_CPU(0.4);
}

SM_NOINLINE static void child_burn(void)
{
	SM_BURN_CPU(0.6);
}

SM_NOINLINE static void parent_burn(void)
{
	SM_BURN_CPU(0.6);
}

SM_NOINLINE static int run_fork(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, companion, NULL))
		return 3;
	before_fork();
	pid_t pid = fork();
	if (pid < 0)
		return 3;
	if (pid == 0) {
		child_burn();
		return 0; /* exit: the child writes its own profile */
	}
	parent_burn();
	atomic_store(&stop, 1);
	if (pthread_join(t, NULL))
		return 3;
	int status;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		return 4;
	printf("child ok\n");
	return 0;
}

SM_NOINLINE static int run_forks(int n)
{
	pthread_t t;

	if (pthread_create(&t, NULL, companion, NULL))
		return 3;
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid < 0)
			return 3;
		if (pid == 0) /* past the library: no profile of its own */
			syscall(SYS_exit_group, 0);
		if (waitpid(pid, NULL, 0) != pid)
			return 3;
	}
	atomic_store(&stop, 1);
	if (pthread_join(t, NULL))
		return 3;
	printf("forks %d\n", n);
	return 0;
}

SM_NOINLINE static void thread_burn(void)
{
	SM_BURN_CPU(0.003);
}

static void *short_thread(void *arg)
{
	(void)arg;
	thread_burn();
	return NULL;
}

SM_NOINLINE static int run_threads(void)
{
	int created = 0;

	for (int batch = 0; batch < 20; batch++) {
		pthread_t t[25];
		for (int i = 0; i < 25; i++) {
			if (pthread_create(&t[i], NULL, short_thread, NULL))
				return 3;
			created++;
		}
		for (int i = 0; i < 25; i++)
			if (pthread_join(t[i], NULL))
				return 3;
	}
	printf("threads %d\n", created);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "fork"))
		return run_fork();
	if (argc > 1 && !strcmp(argv[1], "threads"))
		return run_threads();
	if (argc > 2 && !strcmp(argv[1], "forks"))
		return run_forks(atoi(argv[2]));
	fprintf(stderr, "usage: sm_fork fork|forks N|threads\n");
	return 2;
}
