/*
 * windows_prog.c - a deterministic program for the windows test: two
 * threads, each running a region over growing inputs for about a second,
 * with pauses, so that TRMS_INTERVAL=0.1 cuts several windows while
 * activations end; the main thread forks once (the child's windows are
 * its own) and exits with a region still open.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <trms.h>

static char buffer[2][1 << 15];

static void pause_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000 };

	nanosleep(&ts, NULL);
}

static void scan(char *buf, size_t n)
{
	trms_region_begin("scan");
	for (size_t i = 0; i < n; i += 16)
		trms_read(buf + i, 16);
	trms_region_end("scan");
}

static void *worker(void *arg)
{
	char *buf = arg;

	trms_thread_name(buf == buffer[0] ? "main-work" : "helper");
	for (int round = 0; round < 50; round++) {
		for (size_t n = 64; n <= sizeof(buffer[0]); n *= 2)
			scan(buf, n);
		pause_ms(20);
	}
	return NULL;
}

int main(void)
{
	pthread_t helper;

	if (pthread_create(&helper, NULL, worker, buffer[1]))
		return 1;
	pid_t child = fork();
	if (child == 0) {
		/* The child: a few windows of its own. */
		for (int round = 0; round < 15; round++) {
			scan(buffer[0], 1024);
			pause_ms(20);
		}
		/* exit, not _exit: after _exit no last window is
		 * written (docs/windows.md). */
		exit(0);
	}
	worker(buffer[0]);
	pthread_join(helper, NULL);
	int status;
	if (child > 0)
		waitpid(child, &status, 0);
	trms_region_begin("open at exit");
	trms_read(buffer[0], 64);
	return 0;
}
