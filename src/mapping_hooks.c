/*
 * mapping_hooks.c - memory the program maps and unmaps: the shadow of
 * memory that no longer exists is given back (engine_forget), so that a
 * program that maps fresh memory at ever new addresses does not make the
 * library grow without bound, and memory mapped where other memory was
 * before is memory never accessed (docs/production.md).
 *
 *  munmap          the range is forgotten;
 *  mremap          what the mapping no longer covers, and what it newly
 *                  covers (it moved, or grew into an old address);
 *  madvise         MADV_DONTNEED, MADV_FREE and MADV_REMOVE: the pages'
 *                  contents are gone (they read back as zeros or as the
 *                  file's), forgotten;
 *  brk, sbrk       the heap shrinks: what it no longer covers;
 *  mmap, mmap64    the new mapping, which may lie where memory was unmapped
 *                  unseen (by the C library itself: a large free).
 *
 * Each goes to the C library first and forgets only if it succeeded.
 * Calls the library makes for itself go to the kernel directly (sys.h),
 * not here; a call from inside the library (a signal handler that
 * interrupted it) is passed through.
 */
#define _GNU_SOURCE
/* Both mmap and mmap64 are defined here: the headers must not redirect
 * the one to the other. */
#undef _FILE_OFFSET_BITS
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/mman.h>

#include "base/real.h"
#include "runtime/thread.h"
#include "hooks.h"

/* Forget [@addr, @addr + @size) for the calling thread, if the library
 * is active and not interrupted: not from inside the library (its own
 * calls to other libraries, libunwind's in a sample handler), which may
 * hold the locks forgetting takes. */
static void forget(const void *addr, size_t size)
{
	if (!size || !runtime_active() || !runtime_own_process() ||
	    signals_in_library_handler())
		return;
	int saved_errno = errno;
	struct trms_thread *t = thread_current;
	if (t && t->busy)
		return;
	if (t)
		t->busy = true;
	engine_forget(&runtime.engine, t ? &t->engine : NULL,
		      (uintptr_t)addr, size);
	if (t)
		t->busy = false;
	errno = saved_errno;
}

EXPORT void *mmap(void *addr, size_t size, int prot, int flags, int fd,
		  off_t offset)
{
	__typeof__(real.mmap) fn = REAL(mmap);
	void *p = fn ? fn(addr, size, prot, flags, fd, offset)
		     : (errno = ENOSYS, MAP_FAILED);

	if (p != MAP_FAILED)
		forget(p, size);
	return p;
}

EXPORT void *mmap64(void *addr, size_t size, int prot, int flags, int fd,
		    off_t offset)
{
	__typeof__(real.mmap64) fn = REAL(mmap64);
	void *p = fn ? fn(addr, size, prot, flags, fd, offset)
		     : (errno = ENOSYS, MAP_FAILED);

	if (p != MAP_FAILED)
		forget(p, size);
	return p;
}

EXPORT int munmap(void *addr, size_t size)
{
	__typeof__(real.munmap) fn = REAL(munmap);
	int rc = fn ? fn(addr, size) : (errno = ENOSYS, -1);

	if (rc == 0)
		forget(addr, size);
	return rc;
}

EXPORT void *mremap(void *old, size_t old_size, size_t size, int flags, ...)
{
	__typeof__(real.mremap) fn = REAL(mremap);
	void *p;

	if (!fn) {
		errno = ENOSYS;
		return MAP_FAILED;
	}
	if (flags & MREMAP_FIXED) {
		va_list ap;
		va_start(ap, flags);
		void *target = va_arg(ap, void *);
		va_end(ap);
		p = fn(old, old_size, size, flags, target);
	} else {
		p = fn(old, old_size, size, flags);
	}
	if (p == MAP_FAILED)
		return p;
	char *was = old, *now = p;
	if (now != was) {
		/* Moved (or copied, with MREMAP_DONTUNMAP and an old size
		 * left mapped: its contents then are gone too). */
		forget(was, old_size);
		forget(now, size);
	} else if (size < old_size) {
		forget(was + size, old_size - size);
	} else {
		forget(was + old_size, size - old_size);
	}
	return p;
}

#ifndef MADV_FREE
#define MADV_FREE 8
#endif

EXPORT int madvise(void *addr, size_t size, int advice)
{
	__typeof__(real.madvise) fn = REAL(madvise);
	int rc = fn ? fn(addr, size, advice) : (errno = ENOSYS, -1);

	if (rc == 0 && (advice == MADV_DONTNEED || advice == MADV_FREE ||
			advice == MADV_REMOVE))
		forget(addr, size);
	return rc;
}

EXPORT int brk(void *end)
{
	__typeof__(real.brk) fn = REAL(brk);
	__typeof__(real.sbrk) now = REAL(sbrk);
	char *was = now ? now(0) : NULL;
	int rc = fn ? fn(end) : (errno = ENOSYS, -1);

	if (rc == 0 && was && (char *)end < was)
		forget(end, (size_t)(was - (char *)end));
	return rc;
}

EXPORT void *sbrk(intptr_t increment)
{
	__typeof__(real.sbrk) fn = REAL(sbrk);
	char *was = fn ? fn(increment) : (errno = ENOSYS, (void *)-1);

	if (was != (void *)-1 && increment < 0)
		forget(was + increment, (size_t)-increment);
	return was;
}
