/*
 * inline_checks.c - the checks `trms cc --trms-full` puts before every
 * load and store of a program built with Clang.  Not part of libtrms:
 * compiled to LLVM bitcode, which the compiler plugin
 * (tools/cc/plugin/trms_pass.cpp) links into each module it instruments
 * and inlines at each access, so that the common access is a few loads
 * and compares in the program's own code (engine_fast.h says which) and
 * only the others call the library (access_hooks.c).
 *
 * The structures they read are the library's (engine.h); a module
 * built against other versions of them hands the library another
 * INLINE_CHECKS_ABI and the library then never gives it a copy to
 * read.
 */
#include <stddef.h>
#include <stdint.h>

#include "inline_checks.h"

extern __thread struct engine_fast *__trms_fast
	__attribute__((tls_model("initial-exec")));
void __trms_fast_enable(unsigned abi);

/* The check of a @kind (load or store) of @n bytes: decided by @decide
 * (engine_fast.h), else the outlined call the library answers. */
#define CHECK(kind, n, decide)                                            \
	void __asan_##kind##n##_noabort(void *addr);                      \
	void __trms_check_##kind##n(void *addr);                          \
                                                                          \
	void __trms_check_##kind##n(void *addr)                           \
	{                                                                 \
		struct engine_fast *f = __trms_fast;                      \
		if (__builtin_expect(f && !inline_checks_busy(f), 1)) {   \
			struct engine_thread *t = engine_fast_owner(f);  \
			if (__builtin_expect(decide(t, (uintptr_t)addr, n), \
					     1)) {                        \
				t->events++;                              \
				return;                                   \
			}                                                 \
		}                                                         \
		__asan_##kind##n##_noabort(addr);                         \
	}

#define CHECKS(n)                                                         \
	CHECK(load, n, engine_fast_read)                                  \
	CHECK(store, n, engine_fast_write)

CHECKS(1)
CHECKS(2)
CHECKS(4)
CHECKS(8)
CHECKS(16)

/* Every instrumented module asks once; the library turns the checks on if
 * it keeps the copies and has the same structures. */
__attribute__((constructor)) static void enable_checks(void)
{
	__trms_fast_enable(INLINE_CHECKS_ABI);
}
