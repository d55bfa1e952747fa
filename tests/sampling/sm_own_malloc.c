/*
 * sm_own_malloc.c - a program with an allocator of its own (malloc, free,
 * calloc, realloc and the aligned ones defined here, as in a program that
 * links one statically):
 * a sample may find it inside its allocator anywhere in its code, so the
 * library opens libunwind at start.  Prints "start yes" if libunwind is
 * mapped when main begins, "start no" if not; then burns SECONDS (argv[1])
 * of CPU time in burn().
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sm_common.h"

/* A bump allocator over one mapping: enough for a short program. */
#define ARENA_BYTES (64u << 20)

static char *arena;
static size_t used;

void *malloc(size_t size)
{
	if (!arena) {
		void *m = mmap(NULL, ARENA_BYTES, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return NULL;
		arena = m;
	}
	/* Room for the size, and 16-byte alignment. */
	size_t need = (size + 16 + 15) & ~(size_t)15;
	if (need < size || used + need > ARENA_BYTES)
		return NULL;
	char *block = arena + used;
	used += need;
	*(size_t *)block = size;
	return block + 16;
}

void *memalign(size_t align, size_t size)
{
	if (align < 16)
		align = 16;
	if (align & (align - 1))
		return NULL;
	char *block = malloc(size + align);
	if (!block)
		return NULL;
	uintptr_t mask = (uintptr_t)align - 1;
	char *p = (char *)(((uintptr_t)block + mask) & ~mask);
	*(size_t *)(p - 16) = size;
	return p;
}

int posix_memalign(void **out, size_t align, size_t size)
{
	void *p = memalign(align, size);

	if (!p)
		return 12; /* ENOMEM */
	*out = p;
	return 0;
}

void *aligned_alloc(size_t align, size_t size)
{
	return memalign(align, size);
}

size_t malloc_usable_size(void *p)
{
	return p ? *(size_t *)((char *)p - 16) : 0;
}

void free(void *p)
{
	(void)p;
}

void *calloc(size_t n, size_t size)
{
	if (size && n > (size_t)-1 / size)
		return NULL;
	/* Fresh from the mapping, never used before: zeros already (and
	 * malloc + memset here would be made a call to calloc). */
	return malloc(n * size);
}

void *realloc(void *p, size_t size)
{
	void *q = malloc(size);
	if (q && p) {
		size_t old = *(size_t *)((char *)p - 16);
		memcpy(q, p, old < size ? old : size);
	}
	return q;
}

static double seconds;

SM_NOINLINE static void burn(void)
{
	SM_BURN_CPU(seconds);
}

int main(int argc, char **argv)
{
	char line[4096];
	FILE *maps = fopen("/proc/self/maps", "r");
	const char *found = "no";

	seconds = argc > 1 ? atof(argv[1]) : 0.2;
	if (!maps)
		return 3;
	while (fgets(line, sizeof(line), maps))
		if (strstr(line, "/libunwind"))
			found = "yes";
	fclose(maps);
	printf("start %s\n", found);
	burn();
	return 0;
}
