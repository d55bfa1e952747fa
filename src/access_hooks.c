/*
 * access_hooks.c - every load and store of code built with `trms cc
 * --trms-full` is an access.
 *
 * The compiler's kernel-address instrumentation, with every check made a
 * call (no inline check, no shadow of its own, no runtime), calls
 * __asan_loadN_noabort(addr) before a load of N bytes and
 * __asan_storeN_noabort(addr) before a store; here they are the engine's
 * read and write for the calling thread, on the path trms_read and
 * trms_write take, with the access's own time kept out of costs (one
 * event each with costs in events).  With Clang and trms's plugin, the
 * accesses inside loops are checked inline instead (inline_checks.c,
 * __trms_fast) and the others come here; with GCC every access does.
 * docs/whole-program.md says what each costs.
 *
 * An access that arrives while the thread is inside the library (a
 * signal handler's, or before the thread's state exists and while it is
 * made) is not recorded, as for the API.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>

#include "access_hooks.h"
#include "call.h"
#include "engine/engine_fast.h"
#include "hooks.h"
#include "inline_checks.h"

/*
 * Code built by `trms cc --trms-full` with Clang checks the common
 * accesses itself (src/inline_checks.c, inlined by the compiler: see
 * engine_fast.h) through the calling thread's engine_fast, found here:
 * NULL until the thread's first access comes through the hooks below,
 * and for good if the library does not keep the copies.  The hooks are
 * where the checks send what they do not decide.
 *
 * Code whose every access is a call (GCC's, Clang's without trms's
 * plugin) gets the same checks at the top of the hooks, through a pointer
 * of the library's own (hook_fast), turned on by the first access: a
 * module built against other structures, which reads __trms_fast, still
 * never finds it set unless a module of these asked for it.
 */
EXPORT __thread struct engine_fast *__trms_fast
	__attribute__((tls_model("initial-exec")));
static __thread struct engine_fast *hook_fast
	__attribute__((tls_model("initial-exec")));
static bool checks_on, hook_checks_on;

/* Not with a trace (every operation must go through the engine's traced
 * paths), nor when only some activations are measured (the checks know
 * nothing of skipped ones). */
static bool checks_allowed(void)
{
	return runtime_active() && !selection.on && !config.tracing;
}

EXPORT void __trms_fast_enable(unsigned abi)
{
	/* Nor for code built against another version of these
	 * structures. */
	if (abi != INLINE_CHECKS_ABI || !checks_allowed() ||
	    __atomic_load_n(&checks_on, __ATOMIC_RELAXED))
		return;
	engine_set_fast(&runtime.engine, true);
	__atomic_store_n(&checks_on, true, __ATOMIC_RELAXED);
}

/* The hooks' own checks, at the first access through them. */
static void enable_hook_checks(void)
{
	if (!checks_allowed())
		return;
	engine_set_fast(&runtime.engine, true);
	__atomic_store_n(&hook_checks_on, true, __ATOMIC_RELAXED);
}

/* The inline checks' decision (inline_checks.c), for an access of @n
 * bytes that came as a call, counted as @events.  @return true if
 * decided and counted. */
static inline __attribute__((always_inline)) bool
decided_fast(uintptr_t addr, size_t n, bool write, uint64_t events)
{
	struct engine_thread *t = inline_checks_thread(hook_fast);

	if (!t || !n)
		return false;
	if (!(write ? engine_fast_write(t, addr, n)
		    : engine_fast_read(t, addr, n)))
		return false;
	t->events += events;
	return true;
}

/*
 * After an access the checks left, the engine's copy is refreshed for
 * them (engine_fast_refresh: a few look-ups).  Where they then decide
 * nothing — a thread whose every access is a first one, filling fresh
 * memory — that is spent for nothing: a thread whose last refresh was
 * followed by no decided access refreshes after every 2nd, 4th, ...,
 * 64th undecided one only, and after each again once one is decided.
 * (Without a refresh the copy stays off or as it was: the checks decide
 * less, never wrongly.)
 */
struct refresh_pace {
	uint64_t events;	/* the thread's events at its last refresh */
	unsigned undecided;	/* accesses the checks left since */
	unsigned gap;		/* how many they may leave before the next */
};

static __thread struct refresh_pace pace
	__attribute__((tls_model("initial-exec")));

#define REFRESH_GAP_MAX 63

static void refresh_paced(struct trms_thread *t, uintptr_t addr)
{
	/* Events counted since the last refresh beyond the undecided
	 * accesses' own: accesses the checks decided. */
	bool decided = t->engine.events - pace.events > ++pace.undecided;

	if (!decided && pace.undecided <= pace.gap)
		return;
	pace.gap = decided ? 0
			   : (pace.gap * 2 + 1 > REFRESH_GAP_MAX
				      ? REFRESH_GAP_MAX
				      : pace.gap * 2 + 1);
	engine_fast_refresh(&t->engine, addr);
	pace.events = t->engine.events;
	pace.undecided = 0;
}

/* An access of @size bytes at @addr by the calling thread, @write or
 * not, counting @span events (costs in events) or one.  Errors (an
 * address outside user space, no memory for shadow) are not the
 * program's to see: the engine stops recording what it cannot record. */
static inline __attribute__((always_inline)) void
record(uintptr_t addr, size_t size, bool write, bool span)
{
	int rc;
	struct trms_thread *t = call_enter(&rc);

	if (!t)
		return;
	if (__builtin_expect(
		    !__atomic_load_n(&hook_checks_on, __ATOMIC_RELAXED), 0))
		enable_hook_checks();
	if (__builtin_expect(runtime_tag() != 0 && size != 0, 1)) {
		if (span) {
			unsigned shift = runtime.engine.cell_shift;
			t->engine.events += ((addr + size - 1) >> shift) -
					    (addr >> shift);
		}
		call_access(t, addr, size, write ? engine_write : engine_read);
		if (__atomic_load_n(&hook_checks_on, __ATOMIC_RELAXED)) {
			refresh_paced(t, addr);
			hook_fast = &t->engine.fast;
			if (__atomic_load_n(&checks_on, __ATOMIC_RELAXED))
				__trms_fast = &t->engine.fast;
		}
	}
	call_leave(t);
}

void access_record_cells(uintptr_t addr, size_t size, bool write)
{
	/* A few bytes (a small memcpy, a short string) the way the inline
	 * checks decide them, when they are on. */
	if (!decided_fast(addr, size, write, ENGINE_FAST_SPAN(size)))
		record(addr, size, write, true);
}

/* An access of @n bytes the checks did not decide. */
static __attribute__((noinline)) void record_one(uintptr_t addr, size_t n,
						 bool write)
{
	record(addr, n, write, false);
}

/* (The checks first, on a path that saves none of the caller's
 * registers; the rest out of line.) */
#define ACCESS_HOOKS(n)                                                  \
	EXPORT void __asan_load##n##_noabort(void *addr)                 \
	{                                                                \
		if (!decided_fast((uintptr_t)addr, n, false, 1))         \
			record_one((uintptr_t)addr, n, false);           \
	}                                                                \
	EXPORT void __asan_store##n##_noabort(void *addr)                \
	{                                                                \
		if (!decided_fast((uintptr_t)addr, n, true, 1))          \
			record_one((uintptr_t)addr, n, true);            \
	}

/* The prototypes the compiler assumes, for -Wmissing-prototypes. */
#define ACCESS_PROTOTYPES(n)                                             \
	void __asan_load##n##_noabort(void *addr);                       \
	void __asan_store##n##_noabort(void *addr);

ACCESS_PROTOTYPES(1)
ACCESS_PROTOTYPES(2)
ACCESS_PROTOTYPES(4)
ACCESS_PROTOTYPES(8)
ACCESS_PROTOTYPES(16)
void __asan_loadN_noabort(void *addr, long size);
void __asan_storeN_noabort(void *addr, long size);
void __asan_handle_no_return(void);
void __asan_before_dynamic_init(const void *module);
void __asan_after_dynamic_init(void);

ACCESS_HOOKS(1)
ACCESS_HOOKS(2)
ACCESS_HOOKS(4)
ACCESS_HOOKS(8)
ACCESS_HOOKS(16)

EXPORT void __asan_loadN_noabort(void *addr, long size)
{
	record((uintptr_t)addr, (size_t)size, false, false);
}

EXPORT void __asan_storeN_noabort(void *addr, long size)
{
	record((uintptr_t)addr, (size_t)size, true, false);
}

/* Called before a function that does not return (a throw, longjmp,
 * abort): the sanitizer would clean its stack shadow; there is none. */
EXPORT void __asan_handle_no_return(void)
{
}

/* GCC brackets a C++ file's dynamic initialisers with these, for the
 * sanitizer's check of initialisation order (the globals of other files
 * poisoned meanwhile): nothing is poisoned here, so nothing to do. */
EXPORT void __asan_before_dynamic_init(const void *module)
{
	(void)module;
}

EXPORT void __asan_after_dynamic_init(void)
{
}

/*
 * The compilers tell the code they instrument that it runs under
 * AddressSanitizer (__SANITIZE_ADDRESS__, __has_feature), and programs
 * then mark the memory they reserve but do not use (zstd's workspaces,
 * memory pools): nothing is checked here, so marks change nothing.
 */
void __asan_poison_memory_region(const volatile void *addr, size_t size);
void __asan_unpoison_memory_region(const volatile void *addr, size_t size);
int __asan_address_is_poisoned(const volatile void *addr);
void *__asan_region_is_poisoned(void *addr, size_t size);

EXPORT void __asan_poison_memory_region(const volatile void *addr,
					size_t size)
{
	(void)addr;
	(void)size;
}

EXPORT void __asan_unpoison_memory_region(const volatile void *addr,
					  size_t size)
{
	(void)addr;
	(void)size;
}

EXPORT int __asan_address_is_poisoned(const volatile void *addr)
{
	(void)addr;
	return 0;
}

EXPORT void *__asan_region_is_poisoned(void *addr, size_t size)
{
	(void)addr;
	(void)size;
	return NULL;
}
