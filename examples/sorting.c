/*
 * sorting.c - an annotated program whose profile shows two growth rates.
 *
 * It sums and then sorts (insertion sort) many arrays of random sizes.
 * Each sum and each sort is a region, and each annotates the memory it
 * reads and writes, so the profile has, per region, one tuple per input
 * size: the sum's cost grows linearly with its input (trms = the array's
 * cells), the sort's quadratically.  The arrays are filled by a producer
 * thread, so for `sum`, which reads each array first, every element is
 * input another thread made (100% thread-induced); `sort` then reads
 * memory its own thread has already read, so none of its input is.
 *
 *   TRMS_OUTPUT=sorting.trms ./sorting && trms report sorting.trms
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <trms.h>

#define ARRAYS 400
#define MAX_LEN 2000

struct job {
	int *data;
	size_t len;
};

static struct job jobs[ARRAYS];

static void *produce(void *arg)
{
	unsigned seed = 12345;

	(void)arg;
	trms_thread_name("producer");
	for (size_t i = 0; i < ARRAYS; i++) {
		size_t len = 8 + (size_t)rand_r(&seed) % MAX_LEN;
		int *data = malloc(len * sizeof(*data));
		if (!data)
			exit(1);
		for (size_t j = 0; j < len; j++)
			data[j] = rand_r(&seed);
		trms_write(data, len * sizeof(*data));
		jobs[i].data = data;
		jobs[i].len = len;
	}
	return NULL;
}

static void insertion_sort(int *v, size_t n)
{
	TRMS_SCOPED_REGION("insertion_sort");
	for (size_t i = 1; i < n; i++) {
		int x = v[i];
		size_t j = i;
		trms_read(&v[i], sizeof(v[i]));
		while (j > 0) {
			trms_read(&v[j - 1], sizeof(v[j - 1]));
			if (v[j - 1] <= x)
				break;
			v[j] = v[j - 1];
			trms_write(&v[j], sizeof(v[j]));
			j--;
		}
		v[j] = x;
		trms_write(&v[j], sizeof(v[j]));
	}
}

static long sum(const int *v, size_t n)
{
	long total = 0;

	TRMS_REGION("sum")
	{
		trms_read(v, n * sizeof(*v));
		for (size_t i = 0; i < n; i++)
			total += v[i];
	}
	return total;
}

int main(void)
{
	pthread_t producer;
	long checksum = 0;

	if (pthread_create(&producer, NULL, produce, NULL))
		return 1;
	pthread_join(producer, NULL);
	for (size_t i = 0; i < ARRAYS; i++) {
		checksum += sum(jobs[i].data, jobs[i].len);
		insertion_sort(jobs[i].data, jobs[i].len);
		free(jobs[i].data);
	}
	printf("sorted %d arrays (checksum %ld)\n", ARRAYS, checksum);
	return 0;
}
