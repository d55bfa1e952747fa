/*
 * function_hooks.c - every function of code built with `trms cc` is a
 * region.  The compiler's -finstrument-functions calls
 * __cyg_profile_func_enter at each function's entry and
 * __cyg_profile_func_exit at each of its returns, with the function's
 * address: an activation of the function's region opens and closes, on
 * the same paths and with the same cost accounting as trms_region_begin
 * and trms_region_end.  The region is named by the function's symbol when
 * the profile is written (output/function_names.c).
 *
 * Exits the compiler's calls never make — a longjmp over instrumented
 * frames, an exception that unwinds them where the compiler calls no exit
 * on the way (Clang) — leave frames whose functions are gone.  A function
 * frame records the stack pointer of its function just after its
 * prologue (@cfa: the hook's own CFA, with bit 0 set to tell function
 * frames from annotated regions); stacks grow down, so frames below the
 * stack pointer of a function that is running are gone.  They are closed,
 * as activations ending then:
 *  - at an exit whose function is not the top frame: the frames above it
 *    that lie below its stack pointer;
 *  - at the first entry after a longjmp (the longjmp hooks below mark the
 *    thread): the frames below where the entered function's return
 *    address lies, which is found by looking up, from the hook's CFA, for
 *    the call site the compiler passes (a function inlined into its
 *    caller passes its caller's, whose own frame, at the very stack
 *    pointer of the hook, is kept).
 * Without a longjmp, entries check nothing: they cost no more for it.
 *
 * An entry that arrives while the thread is inside the library (from a
 * signal handler, or an instrumented allocator the library calls) is
 * ignored, and so is its exit: the exit finds another function's frame on
 * top, and a frame is closed only by its own function's exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>

#include "activation.h"
#include "function_cache.h"
#include "hooks.h"
#include "log.h"
#include "real.h"
#include "text.h"
#include "vm.h"

/* Bit 0 of a function frame's cfa (a CFA is 8-byte aligned). */
#define FUNCTION_FRAME ((uintptr_t)1)

static int lookup_function(struct trms_thread *t, const void *fn,
			   uint32_t *id, const void **frame_key)
{
	*frame_key = fn;
	if (function_cache_find(t->functions, fn, id))
		return 0;

	uint64_t start = call_timed() ? clock_ticks() : 0;
	unsigned generation =
		__atomic_load_n(&region_cache_generation, __ATOMIC_RELAXED);
	int rc = -ENOMEM;

	if (!t->functions)
		t->functions = vm_alloc(sizeof(*t->functions));
	if (t->functions)
		rc = region_intern_function(fn, id);
	if (!rc) {
		function_cache_put(t->functions, fn, *id, generation);
		/* Before the region can begin, the I/O hooks record. */
		if (!atomic_load_explicit(&runtime.record_io,
					  memory_order_relaxed))
			atomic_store(&runtime.record_io, true);
	} else {
		log_internal("cannot register the function at %p: %s", fn,
			     text_errno(-rc));
	}
	if (call_timed())
		t->lookup_slow_ticks += clock_ticks() - start;
	return rc;
}

/* How far up from an entry's CFA its return address is looked for. */
#define RETURN_SLOT_REACH ((uintptr_t)64 << 10)

static inline uintptr_t frame_sp(const struct frame *f)
{
	return f->cfa & ~FUNCTION_FRAME;
}

/* The highest stack pointer among the open function frames: the lookup
 * for a return address stays below it, in memory that is certainly the
 * thread's stack. */
static uintptr_t highest_frame_sp(const struct trms_thread *t)
{
	uintptr_t top = 0;

	for (size_t i = 1; i <= t->engine.depth; i++)
		if ((t->engine.stack[i].cfa & FUNCTION_FRAME) &&
		    frame_sp(&t->engine.stack[i]) > top)
			top = frame_sp(&t->engine.stack[i]);
	return top;
}

/* Where the return address @call_site of the function entered with its
 * stack pointer at @sp lies, plus one word: its caller's stack pointer at
 * the call.  @sp if it is not found. */
static uintptr_t caller_sp(const struct trms_thread *t, uintptr_t sp,
			   const void *call_site)
{
	uintptr_t limit = highest_frame_sp(t);

	if (limit > sp + RETURN_SLOT_REACH)
		limit = sp + RETURN_SLOT_REACH;
	if (t->sampler.stack.hi && limit > t->sampler.stack.hi)
		limit = t->sampler.stack.hi;
	for (uintptr_t a = (sp + 7) & ~(uintptr_t)7; a + 8 <= limit; a += 8)
		if (*(const void *const *)a == call_site)
			return a + 8;
	return sp;
}

/* After a longjmp: close the frames of functions that are gone, seen
 * from a function entered with its stack pointer at @sp from
 * @call_site. */
static void close_gone(struct trms_thread *t, uintptr_t sp,
		       const void *call_site, bool timed)
{
	uintptr_t below = caller_sp(t, sp, call_site);
	const struct frame *top;

	t->stack_unwound = false;
	while ((top = engine_top(&t->engine)) &&
	       (top->cfa & FUNCTION_FRAME) && frame_sp(top) < below &&
	       frame_sp(top) != sp)
		activation_close(t, timed, timed ? clock_ticks() : 0);
}

static __attribute__((noinline)) void
enter_general(const void *fn, uintptr_t cfa, const void *call_site)
{
	int rc;
	struct trms_thread *t = call_enter(&rc);

	if (!t)
		return;
	activation_calibrate(t);
	if (t->stack_unwound)
		close_gone(t, cfa & ~FUNCTION_FRAME, call_site, call_timed());
	if (call_timed()) {
		activation_open(t, fn, cfa, lookup_function, "function entry",
				true);
	} else {
		activation_open(t, fn, cfa, lookup_function, "function entry",
				false);
	}
	call_leave(t);
}

/* The common case: a function this thread has met, no longjmp since the
 * last entry, room on the stack, an entry whose time is not measured. */
static inline __attribute__((always_inline)) void
enter_fast(const void *fn, uintptr_t cfa, const void *call_site,
	   const bool is_timed)
{
	struct trms_thread *t = thread_current;
	uint32_t id;

	if (__builtin_expect(
		    t && !t->busy && !t->stack_unwound &&
			    function_cache_find(t->functions, fn, &id) &&
			    (!is_timed ||
			     cost_take_unmeasured(&t->cost, COST_OP_BEGIN)),
		    1)) {
		t->busy = true;
		bool opened = engine_try_call(&t->engine, id, runtime_tag(), fn,
					      cfa, t->engine.events);
		if (opened)
			activation_opened_fast(t, is_timed);
		t->busy = false;
		if (__builtin_expect(opened, 1))
			return;
	}
	enter_general(fn, cfa, call_site);
}

EXPORT void __cyg_profile_func_enter(void *fn, void *call_site)
{
	uintptr_t cfa = (uintptr_t)__builtin_dwarf_cfa() | FUNCTION_FRAME;

	if (call_timed())
		enter_fast(fn, cfa, call_site, true);
	else
		enter_fast(fn, cfa, call_site, false);
}

/* @now: the clock read on entry, with costs in nanoseconds. */
static __attribute__((noinline)) void exit_general(const void *fn,
						  uintptr_t cfa, uint64_t now)
{
	int rc;
	struct trms_thread *t = call_enter(&rc);

	if (!t)
		return;
	bool timed = call_timed();
	struct meter m = { 0 };
	if (timed)
		meter_start_at(t, &m, COST_OP_END, now);
	/* Frames above this function's, deeper than its stack pointer:
	 * functions it called that left without their exits. */
	const struct frame *top = engine_top(&t->engine);
	t->stack_unwound = false;
	while (top && (top->cfa & FUNCTION_FRAME) && top->key != fn &&
	       top->cfa < cfa) {
		activation_close(t, timed, timed ? clock_ticks() : 0);
		top = engine_top(&t->engine);
	}
	if (top && top->key == fn && (top->cfa & FUNCTION_FRAME))
		activation_close(t, timed, now);
	if (timed)
		meter_stop(t, &m, COST_OP_END);
	call_leave(t);
}

static inline __attribute__((always_inline)) void
exit_fast(const void *fn, uintptr_t cfa, const bool is_timed)
{
	/* The activation's clock stops first, before any of our own work. */
	uint64_t now = is_timed ? clock_ticks() : 0;
	struct trms_thread *t = thread_current;

	if (__builtin_expect(t && !t->busy, 1)) {
		/* With no activation open this is the sentinel frame, whose
		 * key is NULL. */
		const struct frame *top = &t->engine.stack[t->engine.depth];
		if (__builtin_expect(top->key == fn && !t->stack_unwound &&
					     (top->cfa & FUNCTION_FRAME) &&
					     (!is_timed ||
					      cost_take_unmeasured(
						      &t->cost, COST_OP_END)),
				     1)) {
			t->busy = true;
			activation_close(t, is_timed, now);
			if (is_timed)
				cost_estimated(&t->cost, COST_OP_END);
			t->busy = false;
			return;
		}
	}
	exit_general(fn, cfa, now);
}

EXPORT void __cyg_profile_func_exit(void *fn, void *call_site)
{
	uintptr_t cfa = (uintptr_t)__builtin_dwarf_cfa() | FUNCTION_FRAME;

	(void)call_site;
	if (call_timed())
		exit_fast(fn, cfa, true);
	else
		exit_fast(fn, cfa, false);
}

/*
 * longjmp and its kin leave the functions between here and the setjmp
 * without their exits: mark the thread, for its next entry or exit to
 * close their frames (see above).  Only the mark: the jump itself is the C
 * library's.
 */
static void note_unwound(void)
{
	struct trms_thread *t = thread_current;

	if (t)
		t->stack_unwound = true;
}

EXPORT void longjmp(jmp_buf env, int val)
{
	note_unwound();
	REAL(longjmp)(env, val);
	__builtin_unreachable();
}

EXPORT void _longjmp(jmp_buf env, int val)
{
	note_unwound();
	REAL(longjmp_bsd)(env, val);
	__builtin_unreachable();
}

EXPORT void siglongjmp(sigjmp_buf env, int val)
{
	note_unwound();
	REAL(siglongjmp)(env, val);
	__builtin_unreachable();
}

/* glibc's checked longjmp (_FORTIFY_SOURCE), declared in no header. */
void __longjmp_chk(jmp_buf env, int val) __attribute__((noreturn));

EXPORT void __longjmp_chk(jmp_buf env, int val)
{
	note_unwound();
	REAL(longjmp_chk)(env, val);
	__builtin_unreachable();
}
