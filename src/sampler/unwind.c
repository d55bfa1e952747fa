/*
 * unwind.c - walking a thread's call stack without system calls or
 * descriptors (see unwind.h).
 */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include "sampler/unwind.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <libunwind.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "sampler/modules.h"
#include "base/real.h"
#include "base/signals.h"
#include "base/vm.h"

/* Below the top of the main thread's stack, where its stack pointer may
 * be: the kernel keeps every mapping at least this far below the stack
 * (mmap_base lies at least 128 MiB under it), so a stack pointer in this
 * span is on the main stack, and everything from it to the top is
 * mapped. */
#define MAIN_STACK_SPAN ((uintptr_t)128 << 20)

/* The initial stack pointer, near the top of the main thread's stack
 * (the dynamic loader's). */
extern void *__libc_stack_end;

/* What the walk under way on this thread may read. */
struct walk {
	const struct unwind_stack *stack;
	const struct modules_view *objects;
	uintptr_t context_lo, context_hi; /* the ucontext itself */
	uintptr_t sp; /* the stack pointer the walk starts from */
	const struct unwind_saved *saved; /* a stack read in its copy */
};

/* libunwind's functions, from the object opened when a stack is first
 * to be walked (unwind_prepare): most processes never take a sample, and
 * loading it (with the liblzma it needs) is a third of what the library
 * adds to a short command. */
static struct {
	__typeof__(unw_tdep_getcontext) *getcontext;
	__typeof__(unw_init_local2) *init_local2;
	__typeof__(unw_step) *step;
	__typeof__(unw_get_reg) *get_reg;
	__typeof__(unw_get_accessors) *get_accessors;
	__typeof__(unw_set_caching_policy) *set_caching_policy;
	__typeof__(unw_local_addr_space) *local_addr_space;
} unw;

static __thread const struct walk *walking
	__attribute__((tls_model("initial-exec")));
static __thread uintptr_t alt_lo, alt_hi
	__attribute__((tls_model("initial-exec")));

static uintptr_t page_floor(uintptr_t a)
{
	return a & ~(uintptr_t)(vm_page_size() - 1);
}

static bool inside(uintptr_t addr, uintptr_t lo, uintptr_t hi)
{
	return addr >= lo && addr <= hi && hi - addr >= sizeof(unw_word_t);
}

/* May the walk @w read the word at @addr? */
static bool readable(const struct walk *w, uintptr_t addr)
{
	const struct unwind_stack *s = w->stack;
	uintptr_t sp = w->sp;

	if (inside(addr, w->context_lo, w->context_hi))
		return true;
	if (s->hi) {
		/* A thread whose whole stack is known; else the main
		 * thread's, from the page of a stack pointer on it up. */
		if (s->lo && inside(addr, s->lo, s->hi))
			return true;
		uintptr_t floor = s->lo ? s->lo : s->hi - MAIN_STACK_SPAN;
		if (sp >= floor && sp < s->hi &&
		    inside(addr, page_floor(sp), s->hi))
			return true;
	}
	if (alt_hi && sp >= alt_lo && sp < alt_hi &&
	    inside(addr, page_floor(sp), alt_hi))
		return true;
	return modules_readable_in(w->objects, addr, sizeof(unw_word_t));
}

/* A word read for a walk that is not the library's: the program's own
 * use of libunwind.  Checked by the kernel, which needs no descriptor. */
static int read_checked(unw_word_t addr, unw_word_t *val)
{
	struct iovec local = { val, sizeof(*val) };
	struct iovec remote = { (void *)addr, sizeof(*val) };

	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) ==
			       (ssize_t)sizeof(*val)
		       ? 0
		       : -UNW_EINVAL;
}

static int access_memory(unw_addr_space_t as, unw_word_t addr,
			 unw_word_t *val, int write, void *arg)
{
	const struct walk *w = walking;

	(void)as;
	(void)arg;
	if (write) {
		/* Only a program's own libunwind use writes (to resume a
		 * context): as libunwind itself does it. */
		if (w)
			return -UNW_EINVAL;
		memcpy((void *)addr, val, sizeof(*val));
		return 0;
	}
	if (!w)
		return read_checked(addr, val);
	const struct unwind_saved *saved = w->saved;
	uintptr_t at = (uintptr_t)addr;
	if (saved && inside(at, saved->lo, saved->lo + saved->len)) {
		memcpy(val, saved->bytes + (at - saved->lo), sizeof(*val));
		return 0;
	}
	if (!readable(w, (uintptr_t)addr))
		return -UNW_EINVAL;
	/* Unwind tables are read at any alignment. */
	memcpy(val, (const void *)addr, sizeof(*val));
	return 0;
}

void unwind_note_alt_stack(const void *base, size_t size)
{
	alt_lo = size ? (uintptr_t)base : 0;
	alt_hi = size ? (uintptr_t)base + size : 0;
}

void unwind_stack_of_self(struct unwind_stack *stack, bool main)
{
	pthread_attr_t attr;
	void *addr;
	size_t size;

	stack->lo = stack->hi = 0;
	if (main) {
		/* The page holding the initial stack pointer is mapped
		 * whole; the stack grows down from there. */
		stack->hi = page_floor((uintptr_t)__libc_stack_end) +
			    vm_page_size();
		return;
	}
	if (pthread_getattr_np(pthread_self(), &attr) != 0)
		return;
	if (pthread_attr_getstack(&attr, &addr, &size) == 0 && size) {
		stack->lo = (uintptr_t)addr;
		stack->hi = (uintptr_t)addr + size;
	}
	pthread_attr_destroy(&attr);
}

/* The frames from @uc, read as @w allows. */
static unsigned walk_frames(struct walk *w, ucontext_t *uc, bool signal_frame,
			    uintptr_t *ip, uintptr_t *sp, unsigned max)
{
	const struct walk *outer = walking;
	unw_cursor_t cursor;
	unsigned n = 0;

	walking = w;
	if (unw.init_local2(&cursor, uc,
			    signal_frame ? UNW_INIT_SIGNAL_FRAME : 0) < 0)
		goto out;
	do {
		unw_word_t pc, stack_pointer;
		if (unw.get_reg(&cursor, UNW_REG_IP, &pc) < 0 || pc == 0)
			break;
		if (unw.get_reg(&cursor, UNW_REG_SP, &stack_pointer) < 0)
			break;
		ip[n] = n ? (uintptr_t)pc - 1 : (uintptr_t)pc;
		sp[n] = (uintptr_t)stack_pointer;
		n++;
	} while (n < max && unw.step(&cursor) > 0);
out:
	walking = outer;
	return n;
}

unsigned unwind_frames(const struct unwind_stack *stack,
		       const struct modules_view *objects, ucontext_t *uc,
		       bool signal_frame, uintptr_t *ip, uintptr_t *sp,
		       unsigned max)
{
	struct walk w = {
		.stack = stack,
		.objects = objects,
		.context_lo = (uintptr_t)uc,
		.context_hi = (uintptr_t)uc + sizeof(*uc),
		.sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP],
	};

	return walk_frames(&w, uc, signal_frame, ip, sp, max);
}

/* The lowest address of the thread's stack, in @stack, that a walk
 * from @sp may read (its stack pointer's page: mapped), or 0 if @sp is
 * not on that stack. */
static uintptr_t stack_floor(const struct unwind_stack *stack, uintptr_t sp)
{
	uintptr_t hi = stack->hi;
	uintptr_t lo = stack->lo ? stack->lo : hi - MAIN_STACK_SPAN;

	if (!hi || sp < lo || sp >= hi)
		return 0;
	return page_floor(sp) > lo ? page_floor(sp) : lo;
}

/* Below the stack pointer, what a function that calls nothing may use
 * (the x86-64 ABI's red zone). */
#define RED_ZONE 128

__attribute__((no_sanitize("address"))) bool
unwind_save(const struct unwind_stack *stack, const ucontext_t *uc,
	    struct unwind_saved *out, unsigned char *bytes, size_t cap)
{
	uintptr_t sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
	uintptr_t floor = stack_floor(stack, sp);

	if (!floor)
		return false;
	uintptr_t lo = sp - RED_ZONE > floor ? sp - RED_ZONE : floor;
	size_t len = stack->hi - lo;
	if (len > cap)
		return false;
	/* Word by word, not memcpy: a sanitizer's memcpy would take the
	 * stack's other frames for overflows. */
	for (size_t i = 0; i + sizeof(uintptr_t) <= len; i += sizeof(uintptr_t))
		*(uintptr_t *)(bytes + i) =
			*(const volatile uintptr_t *)(lo + i);
	out->uc = *uc;
	/* Into the signal frame, gone by the time the copy is walked (and
	 * unwinding reads only the general registers). */
	out->uc.uc_mcontext.fpregs = NULL;
	out->lo = lo;
	out->len = len;
	out->bytes = bytes;
	return true;
}

unsigned unwind_saved_frames(const struct unwind_saved *saved,
			     const struct modules_view *objects, uintptr_t *ip,
			     uintptr_t *sp, unsigned max)
{
	static const struct unwind_stack none;
	struct walk w = {
		.stack = &none,
		.objects = objects,
		.context_lo = (uintptr_t)&saved->uc,
		.context_hi = (uintptr_t)&saved->uc + sizeof(saved->uc),
		.saved = saved,
	};

	return walk_frames(&w, (ucontext_t *)&saved->uc, true, ip, sp, max);
}

__attribute__((noinline)) unsigned
unwind_frames_here(const struct unwind_stack *stack,
		   const struct modules_view *objects, uintptr_t *ip,
		   uintptr_t *sp, unsigned max)
{
	unw_context_t uc;

	if (unw.getcontext(&uc) != 0)
		return 0;
	return unwind_frames(stack, objects, &uc, false, ip, sp, max);
}

/* The lowest free descriptor above @after (-1: from 0), or -1. */
static int lowest_free(int after)
{
	int probe[2] = { -1, -1 };
	int fd = -1;

	/* Descriptors are handed out lowest first. */
	for (int i = 0; i < 2; i++) {
		probe[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (probe[i] < 0 || probe[i] > after) {
			fd = probe[i];
			break;
		}
	}
	for (int i = 0; i < 2; i++)
		if (probe[i] >= 0)
			close(probe[i]);
	return fd;
}

/* Is @fd one end of a non-blocking, close-on-exec pipe (libunwind's)? */
static bool validation_pipe_end(int fd)
{
	struct stat st;
	int fd_flags = fcntl(fd, F_GETFD), status = fcntl(fd, F_GETFL);

	return fd >= 0 && fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode) &&
	       fd_flags >= 0 && (fd_flags & FD_CLOEXEC) && status >= 0 &&
	       (status & O_NONBLOCK);
}

#define SYMBOL_NAME(sym) SYMBOL_NAME_(sym)
#define SYMBOL_NAME_(sym) #sym
#define FIND(lib, field, sym)                                              \
	(unw.field = (__typeof__(unw.field))dlsym(lib, SYMBOL_NAME(sym)))

/* Open libunwind (TRMS_LIBUNWIND_SONAME, the name the build linked
 * against) and find its functions.  Samples of other threads are dropped
 * while the loader works. */
static bool open_libunwind(void)
{
	__typeof__(real.dlopen) open_object = REAL(dlopen);
	void *lib;

	if (!open_object)
		return false;
	modules_loader_enter();
	lib = open_object(TRMS_LIBUNWIND_SONAME,
			  RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	modules_loader_leave();
	return lib && FIND(lib, getcontext, unw_tdep_getcontext) &&
	       FIND(lib, init_local2, unw_init_local2) &&
	       FIND(lib, step, unw_step) && FIND(lib, get_reg, unw_get_reg) &&
	       FIND(lib, get_accessors, unw_get_accessors) &&
	       FIND(lib, set_caching_policy, unw_set_caching_policy) &&
	       FIND(lib, local_addr_space, unw_local_addr_space);
}

static bool set_up(void)
{
	if (!open_libunwind())
		return false;
	/* libunwind's initialisation opens its validation pipe on the two
	 * lowest free descriptors: note them, and close the pipe after. */
	int first = lowest_free(-1);
	int second = first >= 0 ? lowest_free(first) : -1;
	unw_addr_space_t local = *unw.local_addr_space;

	unw_accessors_t *acc = unw.get_accessors(local);
	if (!acc)
		return false;
	if (validation_pipe_end(first) && validation_pipe_end(second)) {
		close(first);
		close(second);
	}
	unw.set_caching_policy(local, UNW_CACHE_PER_THREAD);
	__atomic_store_n(&acc->access_mem, access_memory, __ATOMIC_RELEASE);
	return true;
}

/* libunwind set up: 0 not yet, 1 done, -1 failed. */
static int state;
static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;

bool unwind_ready(void)
{
	return __atomic_load_n(&state, __ATOMIC_ACQUIRE) > 0;
}

static int prepare(bool in_handler)
{
	int now = __atomic_load_n(&state, __ATOMIC_ACQUIRE);

	if (now)
		return now > 0 ? 0 : -1;
	if (in_handler ? pthread_mutex_trylock(&state_lock)
		       : pthread_mutex_lock(&state_lock))
		return 1;
	if (!state)
		__atomic_store_n(&state, set_up() ? 1 : -1, __ATOMIC_RELEASE);
	now = state;
	pthread_mutex_unlock(&state_lock);
	return now > 0 ? 0 : -1;
}

int unwind_prepare(void)
{
	return prepare(false);
}

/* The object holding @addr, or NULL. */
static void *object_of(const void *addr)
{
	struct dl_find_object found;

	return _dl_find_object((void *)addr, &found) == 0 ? found.dlfo_link_map
							  : NULL;
}

bool unwind_may_wait(void)
{
	void *libc = object_of((const void *)gnu_get_libc_version);

	return libc && object_of((const void *)malloc) == libc &&
	       object_of((const void *)free) == libc;
}

/* Does the stack from @sp up, on the thread whose stack is @stack, hold a
 * signal frame: is the interrupted code a signal handler's (or called by
 * one)?  The kernel puts the address handlers return to, the C library's
 * restorer, at the bottom of every signal frame; only a signal handler of
 * the library's can know it (the kernel's own return address for it).
 * Anywhere it cannot tell (an alternate signal stack, a stack it does not
 * know), it says yes. */
__attribute__((no_sanitize("address"))) static bool
under_signal_frame(const struct unwind_stack *stack, uintptr_t sp)
{
	uintptr_t restorer = (uintptr_t)signals_restorer();
	uintptr_t hi = stack->hi;

	if (!restorer || !stack_floor(stack, sp))
		return true;
	if (alt_hi && sp >= alt_lo && sp < alt_hi)
		return true;
	for (uintptr_t a = (sp + 7) & ~(uintptr_t)7; a + 8 <= hi; a += 8)
		if (*(const volatile uintptr_t *)a == restorer)
			return true;
	return false;
}

/* May the sample's handler open an object, having interrupted @uc?  The
 * loader takes its lock and allocates with malloc: not if the program
 * was inside the C library (malloc's lock, or another), unless inside a
 * call of its own passed on by the library (@passing: a blocking call, a
 * change of signal mask), nor inside the loader, nor inside a signal
 * handler of its own that may have interrupted either, nor in code of no
 * loaded object (JIT code).  Only with the C library's allocator
 * (unwind_may_wait), in a process of one thread (no other thread can
 * hold a lock that the loader waits for).  This library's own code may
 * be interrupted (it holds no lock the loader takes, and the handler
 * only tries its own; a program may have it linked in, not apart). */
static bool may_load_at(const struct unwind_stack *stack, const ucontext_t *uc,
			bool passing)
{
	const void *pc = (const void *)uc->uc_mcontext.gregs[REG_RIP];
	void *at = object_of(pc);

	if (!at || at == object_of((const void *)&_r_debug) ||
	    (at == object_of((const void *)gnu_get_libc_version) && !passing))
		return false;
	return !under_signal_frame(stack,
				   (uintptr_t)uc->uc_mcontext.gregs[REG_RSP]);
}

int unwind_prepare_interrupting(const struct unwind_stack *stack,
				const ucontext_t *uc, bool passing)
{
	if (unwind_ready())
		return 0;
	if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) < 0)
		return -1;
	return may_load_at(stack, uc, passing) ? prepare(true) : 1;
}
