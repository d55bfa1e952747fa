/*
 * gate_count.c - preloaded before libtrms by tests/gate/gate.sh: counts
 * the calls of the annotation API that reach the library (the program's
 * calls that its inline forms did not decide, by the second names they
 * call, and every call of a program built without them), forwarding
 * each, and writes the counts at exit to the file GATE_COUNTS names:
 * "begin N end N read N write N".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long begins, ends, reads, writes;

#define FORWARD(name, counter, type, arg)                                  \
	int name(type arg);                                                 \
	int name(type arg)                                                  \
	{                                                                   \
		static int (*next)(type);                                   \
		__atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);          \
		if (!next)                                                  \
			next = (int (*)(type))dlsym(RTLD_NEXT, #name);      \
		return next(arg);                                           \
	}

FORWARD(trms_region_begin, begins, const char *, name)
FORWARD(trms_region_end, ends, const char *, name)
FORWARD(trms_region_begin_v1_, begins, const char *, name)
FORWARD(trms_region_end_v1_, ends, const char *, name)

#define FORWARD_ACCESS(name, counter)                                      \
	int name(const void *addr, size_t size);                            \
	int name(const void *addr, size_t size)                             \
	{                                                                   \
		static int (*next)(const void *, size_t);                   \
		__atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);          \
		if (!next)                                                  \
			next = (int (*)(const void *, size_t))dlsym(        \
				RTLD_NEXT, #name);                          \
		return next(addr, size);                                    \
	}

FORWARD_ACCESS(trms_read, reads)
FORWARD_ACCESS(trms_write, writes)
FORWARD_ACCESS(trms_read_v1_, reads)
FORWARD_ACCESS(trms_write_v1_, writes)

__attribute__((destructor)) static void report(void)
{
	const char *path = getenv("GATE_COUNTS");
	FILE *f = path ? fopen(path, "w") : NULL;

	if (!f)
		return;
	fprintf(f, "begin %lu end %lu read %lu write %lu\n", begins, ends,
		reads, writes);
	fclose(f);
}
