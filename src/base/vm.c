/*
 * vm.c - anonymous memory straight from the kernel (see vm.h).
 */
#define _GNU_SOURCE
#include "vm.h"

#include <sys/mman.h>
#include <unistd.h>

size_t vm_page_size(void)
{
	static size_t page;

	if (!page)
		page = (size_t)sysconf(_SC_PAGESIZE);
	return page;
}

static size_t round_to_pages(size_t size)
{
	size_t page = vm_page_size();

	return (size + page - 1) & ~(page - 1);
}

void *vm_alloc(size_t size)
{
	void *p = mmap(NULL, round_to_pages(size), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void vm_free(void *p, size_t size)
{
	if (p)
		munmap(p, round_to_pages(size));
}

void *vm_resize(void *p, size_t old_size, size_t new_size)
{
	void *q = mremap(p, round_to_pages(old_size), round_to_pages(new_size),
			 MREMAP_MAYMOVE);

	return q == MAP_FAILED ? NULL : q;
}

void vm_discard(void *p, size_t size)
{
	madvise(p, round_to_pages(size), MADV_DONTNEED);
}
