/*
 * trms_weak.h - the trms API for examples that may be built without
 * linking libtrms.
 *
 * Normally this is just <trms.h>.  Built with -DTRMS_PRELOAD_ONLY (the
 * `<name>-preload` executables of examples/meson.build), the program is not
 * linked with the library: every API function is declared weak, so the
 * link succeeds with the symbols undefined and the dynamic linker binds
 * them at run time to the library that `trms run` (or
 * LD_PRELOAD=libtrms.so) loaded.  Without it they stay NULL: a program
 * checks TRMS_API_LOADED() before its first trms call.  The header's
 * inline forms read variables of the library's, which a program not
 * linked with it cannot name: TRMS_NO_INLINE turns them off, and every
 * call goes to the library.
 *
 * Built with -DTRMS_NO_ANNOTATIONS, the program has no annotation at all:
 * every region and access annotation compiles to nothing, for building it
 * with `trms cc --trms-full`, which sees every function and access
 * without them (tests/functions/functions.sh builds wordfreq.c so).
 */
#ifndef TRMS_WEAK_H
#define TRMS_WEAK_H

#if defined(TRMS_PRELOAD_ONLY) && !defined(TRMS_NO_INLINE)
#define TRMS_NO_INLINE
#endif
#include <trms.h>

#if defined(TRMS_NO_ANNOTATIONS)
#undef TRMS_SCOPED_REGION
#define TRMS_SCOPED_REGION(name) ((void)0)
/* The same one-pass loop as trms.h's, without the region. */
#undef TRMS_REGION
#define TRMS_REGION(name)                                                   \
	for (int TRMS_CONCAT_(trms_once_, __LINE__) = ((void)(name), 1);    \
	     TRMS_CONCAT_(trms_once_, __LINE__);                            \
	     TRMS_CONCAT_(trms_once_, __LINE__) = 0)
#define trms_region_begin(name) ((void)(name))
#define trms_region_end(name) ((void)(name))
#define trms_read(addr, size) ((void)(addr), (void)(size))
#define trms_write(addr, size) ((void)(addr), (void)(size))
#define trms_thread_name(name) ((void)(name))
#define TRMS_API_LOADED() 1
#elif defined(TRMS_PRELOAD_ONLY)
#define TRMS_WEAK_ __attribute__((weak))

TRMS_WEAK_ const char *trms_version(void);
TRMS_WEAK_ int trms_region_begin(const char *name);
TRMS_WEAK_ int trms_region_end(const char *name);
TRMS_WEAK_ int trms_read(const void *addr, size_t size);
TRMS_WEAK_ int trms_write(const void *addr, size_t size);
TRMS_WEAK_ int trms_thread_name(const char *name);
TRMS_WEAK_ int trms_flush(void);
TRMS_WEAK_ int trms_enable(void);
TRMS_WEAK_ int trms_disable(void);

/* Whether the library was preloaded (a weak undefined symbol is NULL). */
#define TRMS_API_LOADED() (trms_version != NULL)
#else
#define TRMS_API_LOADED() 1
#endif

#endif /* TRMS_WEAK_H */
