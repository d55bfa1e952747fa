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

/* A load's first accesses, and the call of the library for what neither
 * decides: out of line, one copy per module, as they are taken once per
 * cell and activation while the check before every load runs at every
 * one (inlined whole, the checks made sqlite3's code 15 times larger). */
#define FIRST_LOAD(n)                                                     \
	void __asan_load##n##_noabort(void *addr);                        \
	__attribute__((noinline)) void __trms_first_load##n(              \
		struct engine_thread *t, void *addr, stamp_t *own,        \
		stamp_t top, stamp_t o0, stamp_t o1, stamp_t o2,          \
		stamp_t o3);                                              \
                                                                          \
	__attribute__((noinline)) void __trms_first_load##n(              \
		struct engine_thread *t, void *addr, stamp_t *own,        \
		stamp_t top, stamp_t o0, stamp_t o1, stamp_t o2,          \
		stamp_t o3)                                               \
	{                                                                 \
		const struct engine_fast_pending p = {                    \
			own, { o0, o1, o2, o3 }, top                      \
		};                                                        \
		if (engine_fast_read_first(t, &p, ENGINE_FAST_SPAN(n)))   \
			t->events++;                                      \
		else                                                      \
			__asan_load##n##_noabort(addr);                   \
	}

/* The check of a load of @n bytes: the common read decided here, the
 * rest by __trms_first_load@n or the library. */
#define CHECK_LOAD(n)                                                     \
	FIRST_LOAD(n)                                                     \
	void __trms_check_load##n(void *addr);                            \
                                                                          \
	void __trms_check_load##n(void *addr)                             \
	{                                                                 \
		struct engine_thread *t =                                 \
			inline_checks_thread(__trms_fast);                \
		if (t) {                                                  \
			struct engine_fast_pending p;                     \
			const size_t cells = ENGINE_FAST_SPAN(n);         \
			switch (engine_fast_read_seen(t, (uintptr_t)addr, \
						      n, &p)) {           \
			case ENGINE_FAST_DONE:                            \
				t->events++;                              \
				return;                                   \
			case ENGINE_FAST_FIRST:                           \
				__trms_first_load##n(                     \
					t, addr, p.own, p.top, p.o[0],    \
					cells > 1 ? p.o[1] : 0,           \
					cells > 2 ? p.o[2] : 0,           \
					cells > 3 ? p.o[3] : 0);          \
				return;                                   \
			default:                                          \
				break;                                    \
			}                                                 \
		}                                                         \
		__asan_load##n##_noabort(addr);                           \
	}

/* The check of a store of @n bytes: decided here, else the library. */
#define CHECK_STORE(n)                                                    \
	void __asan_store##n##_noabort(void *addr);                       \
	void __trms_check_store##n(void *addr);                           \
                                                                          \
	void __trms_check_store##n(void *addr)                            \
	{                                                                 \
		struct engine_thread *t =                                 \
			inline_checks_thread(__trms_fast);                \
		if (t) {                                                  \
			if (__builtin_expect(                             \
				    engine_fast_write(t, (uintptr_t)addr, \
						      n),                 \
				    1)) {                                 \
				t->events++;                              \
				return;                                   \
			}                                                 \
		}                                                         \
		__asan_store##n##_noabort(addr);                          \
	}

#define CHECKS(n)                                                         \
	CHECK_LOAD(n)                                                     \
	CHECK_STORE(n)

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
