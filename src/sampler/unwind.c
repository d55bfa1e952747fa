/*
 * unwind.c - walking a thread's call stack without system calls or
 * descriptors (see unwind.h).
 */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include "unwind.h"

#include <fcntl.h>
#include <libunwind.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "modules.h"
#include "vm.h"

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
};

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
	const struct walk *outer = walking;
	unw_cursor_t cursor;
	unsigned n = 0;

	walking = &w;
	if (unw_init_local2(&cursor, uc,
			    signal_frame ? UNW_INIT_SIGNAL_FRAME : 0) < 0)
		goto out;
	do {
		unw_word_t pc, stack_pointer;
		if (unw_get_reg(&cursor, UNW_REG_IP, &pc) < 0 || pc == 0)
			break;
		if (unw_get_reg(&cursor, UNW_REG_SP, &stack_pointer) < 0)
			break;
		ip[n] = n ? (uintptr_t)pc - 1 : (uintptr_t)pc;
		sp[n] = (uintptr_t)stack_pointer;
		n++;
	} while (n < max && unw_step(&cursor) > 0);
out:
	walking = outer;
	return n;
}

__attribute__((noinline)) unsigned
unwind_frames_here(const struct unwind_stack *stack,
		   const struct modules_view *objects, uintptr_t *ip,
		   uintptr_t *sp, unsigned max)
{
	unw_context_t uc;

	if (unw_getcontext(&uc) != 0)
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

/* libunwind set up: 0 not yet, 1 done, -1 failed. */
static int state;
static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;

static bool set_up(void)
{
	/* libunwind's initialisation opens its validation pipe on the two
	 * lowest free descriptors: note them, and close the pipe after. */
	int first = lowest_free(-1);
	int second = first >= 0 ? lowest_free(first) : -1;

	unw_accessors_t *acc = unw_get_accessors(unw_local_addr_space);
	if (!acc)
		return false;
	if (validation_pipe_end(first) && validation_pipe_end(second)) {
		close(first);
		close(second);
	}
	unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
	__atomic_store_n(&acc->access_mem, access_memory, __ATOMIC_RELEASE);
	return true;
}

bool unwind_ready(void)
{
	return __atomic_load_n(&state, __ATOMIC_ACQUIRE) > 0;
}

int unwind_prepare(bool in_handler)
{
	int now = __atomic_load_n(&state, __ATOMIC_ACQUIRE);

	if (now)
		return now > 0 ? 0 : -1;
	/* In a handler only on a single thread, which holds no lock of
	 * ours there (the sampler does not sample it inside the library):
	 * the lock is free, and no other thread opens descriptors while the
	 * pipe's numbers are told. */
	if (in_handler ? pthread_mutex_trylock(&state_lock)
		       : pthread_mutex_lock(&state_lock))
		return 1;
	if (!state)
		__atomic_store_n(&state, set_up() ? 1 : -1, __ATOMIC_RELEASE);
	now = state;
	pthread_mutex_unlock(&state_lock);
	return now > 0 ? 0 : -1;
}
