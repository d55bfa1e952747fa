/*
 * loop_prog.c - an annotated loop whose costs in ns the library's own time
 * may dominate, for correction.sh: the region "loop" hashes n 4-byte
 * elements, for sizes n from 100 to 8000 (20 of them, evenly spread over
 * their logarithms), every size REPS times.
 *
 *   loop_prog each ROUNDS REPS    one trms_read per element, and ROUNDS
 *                                 rounds of integer mixing of each (0:
 *                                 about 1 ns of work per element)
 *   loop_prog range ROUNDS REPS   the same loop, its input annotated as
 *                                 one range: one trms_read of the n
 *                                 elements
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trms.h"

#define MAX_N 8000

static uint32_t data[MAX_N];
static volatile uint32_t sink;

static uint32_t hash(size_t n, unsigned rounds, int each)
{
	uint32_t h = 2166136261u;

	if (!each)
		trms_read(data, n * sizeof(*data));
	for (size_t i = 0; i < n; i++) {
		if (each)
			trms_read(&data[i], sizeof(data[i]));
		uint32_t x = data[i];
		for (unsigned r = 0; r < rounds; r++)
			x = (x ^ (x >> 15)) * 0x2c1b3c6du;
		h = (h ^ x) * 16777619u;
	}
	return h;
}

int main(int argc, char **argv)
{
	if (argc != 4 || (strcmp(argv[1], "each") && strcmp(argv[1], "range"))) {
		fprintf(stderr, "usage: loop_prog each|range ROUNDS REPS\n");
		return 2;
	}
	int each = !strcmp(argv[1], "each");
	unsigned rounds = (unsigned)atoi(argv[2]);
	int reps = atoi(argv[3]);

	for (size_t i = 0; i < MAX_N; i++)
		data[i] = (uint32_t)(i * 2654435761u);
	trms_write(data, sizeof(data));
	for (int rep = 0; rep < reps; rep++)
		/* 100 * 1.26^19 = 8063: 20 sizes, the last cut to MAX_N. */
		for (double n = 100; n < 8100; n *= 1.26) {
			size_t size = n < MAX_N ? (size_t)n : MAX_N;
			trms_region_begin("loop");
			sink = hash(size, rounds, each);
			trms_region_end("loop");
		}
	return 0;
}
