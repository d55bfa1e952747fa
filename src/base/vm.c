/*
 * vm.c - anonymous memory straight from the kernel (see vm.h).
 */
#define _GNU_SOURCE
#include "base/vm.h"

#include <stdatomic.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/sys.h"

#if defined(__SANITIZE_THREAD__)
/* ThreadSanitizer learns that unmapped memory is new when mapped again
 * only from its own versions of mmap and munmap: a build with it takes
 * those (the next definitions after the library's hooks), not the raw
 * system calls. */
#include <dlfcn.h>

static void *tsan_mmap(void *a, size_t n, int prot, int flags, int fd,
		       off_t off)
{
	static void *(*next)(void *, size_t, int, int, int, off_t);
	void *(*fn)(void *, size_t, int, int, int, off_t) =
		__atomic_load_n(&next, __ATOMIC_ACQUIRE);

	if (!fn) {
		fn = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(
			RTLD_NEXT, "mmap");
		__atomic_store_n(&next, fn, __ATOMIC_RELEASE);
	}
	return fn(a, n, prot, flags, fd, off);
}

static int tsan_munmap(void *a, size_t n)
{
	static int (*next)(void *, size_t);
	int (*fn)(void *, size_t) = __atomic_load_n(&next, __ATOMIC_ACQUIRE);

	if (!fn) {
		fn = (int (*)(void *, size_t))dlsym(RTLD_NEXT, "munmap");
		__atomic_store_n(&next, fn, __ATOMIC_RELEASE);
	}
	return fn(a, n);
}

static void *tsan_mremap(void *a, size_t from, size_t to, int flags)
{
	void *q = tsan_mmap(NULL, to, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
			    0);

	(void)flags;
	if (q == MAP_FAILED)
		return q;
	memcpy(q, a, from < to ? from : to);
	tsan_munmap(a, from);
	return q;
}

#define sys_mmap tsan_mmap
#define sys_munmap tsan_munmap
#define sys_mremap tsan_mremap
#endif

/* What the library holds, the most it held, and the most it may (0: no
 * limit). */
static atomic_size_t mapped, peak, limit;
static atomic_ulong refusals;

void vm_set_limit(size_t bytes)
{
	atomic_store_explicit(&limit, bytes, memory_order_relaxed);
}

size_t vm_limit(void)
{
	return atomic_load_explicit(&limit, memory_order_relaxed);
}

size_t vm_mapped_bytes(void)
{
	return atomic_load_explicit(&mapped, memory_order_relaxed);
}

unsigned long vm_refusals(void)
{
	return atomic_load_explicit(&refusals, memory_order_relaxed);
}

size_t vm_peak_bytes(void)
{
	return atomic_load_explicit(&peak, memory_order_relaxed);
}

/* Take @bytes more of the limit, less @reserve of it; false (nothing
 * taken) past it. */
static bool take_below(size_t bytes, size_t reserve)
{
	size_t cap = atomic_load_explicit(&limit, memory_order_relaxed);
	size_t had = atomic_fetch_add_explicit(&mapped, bytes,
					       memory_order_relaxed);

	cap = cap > reserve ? cap - reserve : (cap ? 1 : 0);
	if (!cap || had + bytes <= cap) {
		size_t top = atomic_load_explicit(&peak, memory_order_relaxed);
		while (had + bytes > top &&
		       !atomic_compare_exchange_weak_explicit(
			       &peak, &top, had + bytes, memory_order_relaxed,
			       memory_order_relaxed))
			;
		return true;
	}
	atomic_fetch_sub_explicit(&mapped, bytes, memory_order_relaxed);
	atomic_fetch_add_explicit(&refusals, 1, memory_order_relaxed);
	return false;
}

static void give(size_t bytes);

static bool take(size_t bytes)
{
	return take_below(bytes, 0);
}

/* The part of the limit that memory growing with the program's data
 * (shadow memory) leaves to the rest: the library's bookkeeping, its
 * profile, go on when the shadow has reached its part. */
static size_t bulk_reserve(void)
{
	size_t cap = atomic_load_explicit(&limit, memory_order_relaxed);
	size_t r = cap / 8;

	return r < VM_RESERVE_MIN ? (cap / 2 < VM_RESERVE_MIN ? cap / 2
							       : VM_RESERVE_MIN)
				  : r;
}

static void give(size_t bytes)
{
	atomic_fetch_sub_explicit(&mapped, bytes, memory_order_relaxed);
}

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

/* Map @size bytes (whole pages) of what stays @reserve short of the
 * limit; NULL (nothing taken) if the limit or the kernel refuses. */
static void *alloc_below(size_t size, size_t reserve)
{
	size_t bytes = round_to_pages(size);

	if (injected_failure() || !take_below(bytes, reserve))
		return NULL;
	void *p = sys_mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p != MAP_FAILED)
		return p;
	give(bytes);
	return NULL;
}

void *vm_alloc(size_t size)
{
	return alloc_below(size, 0);
}

void *vm_alloc_bulk(size_t size)
{
	return alloc_below(size, bulk_reserve());
}

void *vm_reserve(size_t size)
{
	void *p = sys_mmap(NULL, round_to_pages(size), PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void vm_free_reserved(void *p, size_t size)
{
	if (p)
		sys_munmap(p, round_to_pages(size));
}

void vm_free(void *p, size_t size)
{
	if (!p)
		return;
	sys_munmap(p, round_to_pages(size));
	give(round_to_pages(size));
}

void *vm_resize(void *p, size_t old_size, size_t new_size)
{
	size_t from = round_to_pages(old_size), to = round_to_pages(new_size);

	if (injected_failure() || (to > from && !take(to - from)))
		return NULL;
	void *q = sys_mremap(p, from, to, MREMAP_MAYMOVE);
	if (q == MAP_FAILED) {
		if (to > from)
			give(to - from);
		return NULL;
	}
	if (to < from)
		give(from - to);
	return q;
}

void vm_discard(void *p, size_t size)
{
	sys_madvise(p, round_to_pages(size), MADV_DONTNEED);
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

void vm_populate(void *p, size_t size)
{
	uintptr_t page = (uintptr_t)vm_page_size();
	uintptr_t from = (uintptr_t)p & ~(page - 1);
	uintptr_t to = ((uintptr_t)p + size + page - 1) & ~(page - 1);

	sys_madvise((void *)from, to - from, MADV_POPULATE_WRITE);
}
