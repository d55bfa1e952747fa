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
 * Exits the compiler's calls never make leave frames whose functions are
 * gone.  A function frame records its function's stack pointer just after
 * its prologue (@cfa: the hook's own CFA, with bit 0 set to tell function
 * frames from annotated regions); stacks grow down, so frames below the
 * stack pointer of a running function are gone:
 *  - a longjmp (and its kin, hooked below) closes, before it jumps, the
 *    frames below the stack pointer it will restore (read from the
 *    jmp_buf, on x86-64 with glibc);
 *  - a C++ catch (the hook of __cxa_begin_catch below) closes those below
 *    the catching function's stack pointer: functions the exception
 *    unwound where the compiler calls no exit on the way (Clang, and GCC
 *    with trms cc's plugin);
 *  - an exit whose function is not on top closes the frames above it that
 *    lie below its stack pointer: what is left (a longjmp where the
 *    jmp_buf cannot be read).
 * Entries check nothing: they cost no more for it.
 *
 * An entry that arrives while the thread is inside the library (from a
 * signal handler, or an instrumented allocator the library calls) is
 * ignored, and so is its exit: the exit finds another function's frame on
 * top, and a frame is closed only by its own function's exit.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <setjmp.h>

#include "activation.h"
#include "engine/function_cache.h"
#include "hooks.h"
#include "base/log.h"
#include "base/real.h"
#include "base/text.h"
#include "base/vm.h"

/* Bit 0 of a function frame's cfa (a CFA is 8-byte aligned). */
#define FUNCTION_FRAME ((uintptr_t)1)

static inline uintptr_t frame_sp(const struct frame *f)
{
	return f->cfa & ~FUNCTION_FRAME;
}

/* Close the function frames on top of @t's stack (busy) that lie below
 * stack pointer @sp, except @keep's: functions gone without their exits,
 * ending now. */
static void close_gone(struct trms_thread *t, uintptr_t sp, const void *keep,
		       bool timed)
{
	const struct frame *top;

	/* (Regions skipped on the gate's stack are annotated ones, which
	 * stop it as the engine's do.) */
	while ((top = engine_top(&t->engine)) &&
	       (top->cfa & FUNCTION_FRAME) && frame_sp(top) < sp &&
	       top->key != keep && !gate_has_open(t->sel.gate))
		activation_close(t, timed, timed ? clock_ticks() : 0);
}

static int lookup_function(struct trms_thread *t, const void *fn,
			   uint32_t *id, const void **frame_key)
{
	*frame_key = fn;
	if (function_cache_find(t->functions, fn, id))
		return 0;

	uint64_t start = registration_start();
	unsigned generation =
		__atomic_load_n(&region_cache_generation, __ATOMIC_RELAXED);
	int rc = -ENOMEM;

	if (!t->functions)
		t->functions = vm_alloc(sizeof(*t->functions));
	if (t->functions)
		rc = region_intern_function(fn, id);
	if (!rc)
		function_cache_put(t->functions, fn, *id, generation);
	else
		log_internal("cannot register the function at %p: %s", fn,
			     text_errno(-rc));
	registration_end(t, start, !rc);
	return rc;
}

static __attribute__((noinline)) void enter_general(const void *fn,
						   uintptr_t cfa)
{
	int rc;
	struct trms_thread *t = call_enter(&rc);

	if (!t)
		return;
	activation_calibrate(t);
	if (call_timed()) {
		activation_open(t, fn, cfa, lookup_function, "function entry",
				true);
	} else {
		activation_open(t, fn, cfa, lookup_function, "function entry",
				false);
	}
	call_leave(t);
}

/* The common case: a function this thread has met, room on the stack, an
 * entry whose time is not measured. */
static inline __attribute__((always_inline)) void
enter_fast(const void *fn, uintptr_t cfa, const bool is_timed)
{
	struct trms_thread *t = thread_current;
	uint32_t id;

	if (__builtin_expect(
		    t && !t->busy && function_cache_find(t->functions, fn, &id) &&
			    (!is_timed ||
			     cost_take_unmeasured(&t->cost, COST_OP_BEGIN)),
		    1)) {
		if (__builtin_expect(activation_open_fast(t, id, fn, cfa,
							  is_timed) != -EAGAIN,
				     1))
			return;
	}
	enter_general(fn, cfa);
}

static __attribute__((noinline)) void enter_slow(const void *fn,
						 uintptr_t cfa)
{
	call_timed() ? enter_fast(fn, cfa, true) : enter_fast(fn, cfa, false);
}

/* The commonest entry of all, costs in events and no selection: a few
 * loads, a compare, the frame's stores; anything else is enter_slow's.
 * (Kept apart so that it needs no registers of its caller's saved.) */
EXPORT void __cyg_profile_func_enter(void *fn, void *call_site)
{
	uintptr_t cfa = (uintptr_t)__builtin_dwarf_cfa() | FUNCTION_FRAME;
	struct trms_thread *t = thread_current;
	uint32_t id;

	(void)call_site;
	if (__builtin_expect(t && !t->busy && !call_timed() && !selection.on &&
				     function_cache_find(t->functions, fn, &id),
			     1)) {
		t->busy = true;
		bool opened = engine_try_call(&t->engine, id, runtime_tag(),
					      fn, cfa, t->engine.events);
		t->busy = false;
		if (__builtin_expect(opened, 1))
			return;
	}
	enter_slow(fn, cfa);
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
	close_gone(t, cfa & ~FUNCTION_FRAME, fn, timed);
	const struct frame *top = engine_top(&t->engine);
	if (top && top->key == fn && (top->cfa & FUNCTION_FRAME))
		activation_close(t, timed, now);
	if (timed)
		meter_stop(t, &m, COST_OP_END);
	call_leave(t);
}

static inline __attribute__((always_inline)) void
exit_fast(const void *fn, uintptr_t cfa, const bool is_timed)
{
	struct trms_thread *t = thread_current;

	/* Only skipped activations pending: no clock to stop. */
	if (__builtin_expect(selection.on, 0) && t && !t->busy) {
		const struct frame *top = &t->engine.stack[t->engine.depth];
		if (activation_close_skipped(t, top->key == fn &&
							(top->cfa &
							 FUNCTION_FRAME)))
			return;
	}
	/* The activation's clock stops first, before any of our own work. */
	uint64_t now = is_timed ? clock_ticks() : 0;

	if (__builtin_expect(t && !t->busy, 1)) {
		/* With no activation open this is the sentinel frame, whose
		 * key is NULL. */
		const struct frame *top = &t->engine.stack[t->engine.depth];
		if (__builtin_expect(top->key == fn &&
					     (top->cfa & FUNCTION_FRAME) &&
					     (!is_timed ||
					      cost_take_unmeasured(
						      &t->cost, COST_OP_END)),
				     1)) {
			activation_close_fast(t, is_timed, now);
			return;
		}
	}
	exit_general(fn, cfa, now);
}

static __attribute__((noinline)) void exit_slow(const void *fn,
						uintptr_t cfa)
{
	call_timed() ? exit_fast(fn, cfa, true) : exit_fast(fn, cfa, false);
}

/* The commonest exit, as __cyg_profile_func_enter's: the function's own
 * frame on top, costs in events, no selection. */
EXPORT void __cyg_profile_func_exit(void *fn, void *call_site)
{
	uintptr_t cfa = (uintptr_t)__builtin_dwarf_cfa() | FUNCTION_FRAME;
	struct trms_thread *t = thread_current;

	(void)call_site;
	if (__builtin_expect(t && !t->busy && !call_timed() && !selection.on,
			     1)) {
		/* With no activation open this is the sentinel frame, whose
		 * key is NULL. */
		const struct frame *top = &t->engine.stack[t->engine.depth];
		if (__builtin_expect(top->key == fn &&
					     (top->cfa & FUNCTION_FRAME),
				     1)) {
			activation_close_fast(t, false, 0);
			return;
		}
	}
	exit_slow(fn, cfa);
}

/* The stack pointer a longjmp to @env restores, if this platform's
 * jmp_buf can be read: glibc on x86-64 keeps it at __jmpbuf[6], mangled
 * with the thread's pointer guard (%fs:0x30): xor, then rotated left by
 * 17 bits. */
static bool jump_target_sp(const struct __jmp_buf_tag *env, uintptr_t *sp)
{
#if defined(__x86_64__) && defined(__GLIBC__)
	uintptr_t guard, v = (uintptr_t)env->__jmpbuf[6];

	__asm__("mov %%fs:0x30, %0" : "=r"(guard));
	*sp = ((v >> 17) | (v << 47)) ^ guard;
	return true;
#else
	(void)env;
	(void)sp;
	return false;
#endif
}

/*
 * longjmp and its kin leave the functions between here and the setjmp
 * without their exits: their activations end now, before the jump (the
 * frames below the stack pointer it restores).  Where the jmp_buf cannot
 * be read, the next exit of a function still running closes them.  The
 * jump itself is the C library's.
 */
/* Close the function frames on top of the calling thread's stack that lie
 * below stack pointer @sp: their functions are gone. */
static void close_frames_below(uintptr_t sp)
{
	struct trms_thread *t = thread_current;

	if (!t || t->busy)
		return;
	t->busy = true;
	close_gone(t, sp, NULL, call_timed());
	t->busy = false;
}

static void leave_jumped_frames(const struct __jmp_buf_tag *env)
{
	uintptr_t target;

	/* A target below this very frame is not a stack pointer we can
	 * trust (another stack, or an unreadable jmp_buf). */
	if (jump_target_sp(env, &target) &&
	    target >= (uintptr_t)__builtin_frame_address(0))
		close_frames_below(target);
}

EXPORT void longjmp(jmp_buf env, int val)
{
	leave_jumped_frames(env);
	REAL(longjmp)(env, val);
	__builtin_unreachable();
}

EXPORT void _longjmp(jmp_buf env, int val)
{
	leave_jumped_frames(env);
	REAL(longjmp_bsd)(env, val);
	__builtin_unreachable();
}

EXPORT void siglongjmp(sigjmp_buf env, int val)
{
	leave_jumped_frames(env);
	REAL(siglongjmp)(env, val);
	__builtin_unreachable();
}

/* glibc's checked longjmp (_FORTIFY_SOURCE), declared in no header. */
void __longjmp_chk(jmp_buf env, int val) __attribute__((noreturn));

EXPORT void __longjmp_chk(jmp_buf env, int val)
{
	leave_jumped_frames(env);
	REAL(longjmp_chk)(env, val);
	__builtin_unreachable();
}

/*
 * C++: a catch begins (the compiler calls __cxa_begin_catch in the
 * handler) in the function that catches, whose stack pointer is this
 * call's CFA; the functions the exception unwound lie below it, and where
 * the compiler calls no exit on the way (Clang, and GCC through trms cc's
 * plugin, which both instrument after inlining) their frames are still
 * open: closed here, where they end.  Then the C++ runtime's.
 */
void *__cxa_begin_catch(void *exception);

EXPORT void *__cxa_begin_catch(void *exception)
{
	static void *(*begin_catch)(void *);

	close_frames_below((uintptr_t)__builtin_dwarf_cfa());
	if (!begin_catch)
		begin_catch = (void *(*)(void *))dlsym(RTLD_NEXT,
						      "__cxa_begin_catch");
	if (!begin_catch) /* no C++ runtime, yet a catch: nothing to do */
		abort();
	return begin_catch(exception);
}
