/*
 * windows_stress.c - threads busy inside regions and between them at
 * every window boundary, for the windows test: more threads than CPUs
 * (so that the window writer often finds a thread preempted inside the
 * library), nested regions, one thread that ends half-way and one that
 * starts half-way.  Costs in events make every run's tuples those of its
 * own activations; the test checks that its windows add up to its
 * profile, tuple for tuple.
 *
 * Usage: windows_stress SECONDS THREADS
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include <trms.h>

static char buffer[8][1 << 14];

struct work {
	char *buf;
	double seconds;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static unsigned long next(unsigned long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void inner(char *buf, unsigned long *s)
{
	trms_region_begin("inner");
	for (unsigned long i = 0, n = 1 + next(s) % 32; i < n; i++)
		trms_read(buf + 16 * (next(s) % 1000), 16);
	trms_region_end("inner");
}

static void *worker(void *arg)
{
	const struct work *w = arg;
	char *buf = w->buf;
	unsigned long s = (unsigned long)buf | 1;
	double end = now() + w->seconds;
	volatile unsigned long sink = 0;

	while (now() < end) {
		trms_region_begin("outer");
		for (unsigned long k = 0, n = next(&s) % 4; k < n; k++)
			inner(buf, &s);
		trms_write(buf + 16 * (next(&s) % 1000), 16);
		trms_region_end("outer");
		/* Between regions: the library is left. */
		for (int i = 0; i < 100; i++)
			sink += (unsigned long)i;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0.5;
	int threads = argc > 2 ? atoi(argv[2]) : 4;
	pthread_t t[8];
	struct work w[8];

	if (threads < 3 || threads > 8 || !(seconds > 0))
		return 2;
	/* The first thread ends half-way, the last starts then. */
	for (int i = 0; i < threads; i++)
		w[i] = (struct work){ buffer[i], i == 0 || i == threads - 1
							 ? seconds / 2
							 : seconds };
	for (int i = 0; i < threads - 1; i++)
		if (pthread_create(&t[i], NULL, worker, &w[i]))
			return 1;
	double half = seconds / 2;
	struct timespec ts = { (time_t)half,
			       (long)((half - (double)(time_t)half) * 1e9) };
	nanosleep(&ts, NULL);
	if (pthread_create(&t[threads - 1], NULL, worker, &w[threads - 1]))
		return 1;
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	return 0;
}
