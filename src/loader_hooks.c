/*
 * loader_hooks.c - the dynamic loader: the module table follows dlopen and
 * dlclose, and while a thread is inside the loader (whose lock unwinding
 * takes) a sample that interrupts it is dropped rather than unwound.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>

#include "annotated.h"
#include "sampler/modules.h"
#include "base/real.h"
#include "engine/region.h"
#include "runtime/thread.h"
#include "hooks.h"

static inline __attribute__((always_inline)) bool active(void)
{
	return runtime_active();
}

EXPORT void *dlopen(const char *file, int mode)
{
	__typeof__(real.dlopen) fn = REAL(dlopen);
	void *handle;

	modules_loader_enter();
	handle = fn ? fn(file, mode) : NULL;
	modules_loader_leave();
	if (handle && active()) {
		modules_refresh();
		/* A plugin that opens regions: its I/O counts from now. */
		if (!atomic_load(&runtime.record_io) && annotated_scan())
			runtime_expect_regions();
	}
	return handle;
}

EXPORT int dlclose(void *handle)
{
	__typeof__(real.dlclose) fn = REAL(dlclose);
	int rc;

	/* No sample may be reading the object's unwind tables or code
	 * while it is unmapped, nor start before the table of readable
	 * segments no longer has it. */
	modules_unload_begin();
	modules_loader_enter();
	rc = fn ? fn(handle) : (errno = ENOSYS, -1);
	modules_loader_leave();
	/* A name cached by its address may now be gone, and its address
	 * reused for another text. */
	region_cache_invalidate();
	if (active())
		modules_refresh();
	modules_unload_end();
	return rc;
}

/* AddressSanitizer's start-up calls this before its shadow memory exists,
 * and before the library has started: then nothing instrumented may run,
 * so the call goes straight through (no sample can come yet either). */
EXPORT __attribute__((no_sanitize("address", "undefined"))) int
dl_iterate_phdr(int (*callback)(struct dl_phdr_info *, size_t, void *),
		void *data)
{
	__typeof__(real.dl_iterate_phdr) fn = real.dl_iterate_phdr;
	int rc;

	if (!active()) {
		if (!fn)
			fn = (__typeof__(fn))dlsym(RTLD_NEXT, "dl_iterate_phdr");
		return fn ? fn(callback, data) : 0;
	}
	modules_loader_enter();
	rc = fn ? fn(callback, data) : 0;
	modules_loader_leave();
	return rc;
}
