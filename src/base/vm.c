/*
 * vm.c - anonymous memory straight from the kernel (see vm.h).
 */
#define _GNU_SOURCE
#include "vm.h"

#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#ifdef TRMS_FAULT_INJECTION
#include <errno.h>
#include <stdlib.h>

/* Only in the library the tests build for it (tests/faults), never in the
 * installed one: the allocation numbered TRMS_FAULT_ALLOC (1: the first;
 * vm_alloc and vm_resize count) fails as a refused mapping would, and
 * vm_allocations counts them all. */
unsigned long vm_allocations;

static bool injected_failure(void)
{
	static unsigned long fail_at;
	static int setting_read;

	if (!__atomic_load_n(&setting_read, __ATOMIC_ACQUIRE)) {
		unsigned long n = 0;
		for (const char *v = getenv("TRMS_FAULT_ALLOC");
		     v && *v >= '0' && *v <= '9'; v++)
			n = 10 * n + (unsigned long)(*v - '0');
		__atomic_store_n(&fail_at, n, __ATOMIC_RELAXED);
		__atomic_store_n(&setting_read, 1, __ATOMIC_RELEASE);
	}
	if (__atomic_add_fetch(&vm_allocations, 1, __ATOMIC_RELAXED) !=
	    __atomic_load_n(&fail_at, __ATOMIC_RELAXED))
		return false;
	errno = ENOMEM;
	return true;
}
#else
#define injected_failure() false
#endif

size_t vm_page_size(void)
{
	static size_t page;

	if (!page)
		page = (size_t)getauxval(AT_PAGESZ);
	return page;
}

static size_t round_to_pages(size_t size)
{
	size_t page = vm_page_size();

	return (size + page - 1) & ~(page - 1);
}

void *vm_alloc(size_t size)
{
	if (injected_failure())
		return NULL;
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
	if (injected_failure())
		return NULL;
	void *q = mremap(p, round_to_pages(old_size), round_to_pages(new_size),
			 MREMAP_MAYMOVE);

	return q == MAP_FAILED ? NULL : q;
}

void vm_discard(void *p, size_t size)
{
	madvise(p, round_to_pages(size), MADV_DONTNEED);
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

void vm_populate(void *p, size_t size)
{
	uintptr_t page = (uintptr_t)vm_page_size();
	uintptr_t from = (uintptr_t)p & ~(page - 1);
	uintptr_t to = ((uintptr_t)p + size + page - 1) & ~(page - 1);

	madvise((void *)from, to - from, MADV_POPULATE_WRITE);
}
