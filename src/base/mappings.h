/*
 * mappings.h - the process's memory mappings, as the kernel lists them
 * (/proc/self/maps), read without allocating from the C library and
 * without the library's own hooks: to find memory that was unmapped
 * unseen.
 */
#ifndef TRMS_MAPPINGS_H
#define TRMS_MAPPINGS_H

#include <stddef.h>
#include <stdint.h>

struct mapping {
	uintptr_t start, end;
};

struct mappings {
	struct mapping *ranges; /* in address order */
	size_t n;
	size_t bytes; /* of ranges' memory (vm_alloc) */
};

/* Read the process's mappings into @m.  @return 0, or a negative errno
 * (no /proc: a chroot or a sandbox; no memory). */
int mappings_read(struct mappings *m);

void mappings_free(struct mappings *m);

#endif
