/*
 * unwind.h - walking a thread's call stack with libunwind, without a
 * system call and without a file descriptor.
 *
 * libunwind checks every address it reads while unwinding (Debian builds
 * it with conservative checks): with mincore and with a write of one byte
 * into a pipe of its own, kept on two descriptors.  Inside a program that
 * closes every descriptor and opens files (every daemon does), those
 * numbers become the program's files, and the checks read and write them;
 * inside a seccomp sandbox the system calls kill the process.  The library
 * therefore gives libunwind's local address space a memory accessor of its
 * own: while the library unwinds, an address may be read only if it lies
 * in a stack it knows (the thread's own, from just below the interrupted
 * stack pointer to the stack's top; an alternate signal stack the program
 * set) or in a segment of a loaded object; anything else ends the walk
 * there.  Outside the library's own walks (a program that uses libunwind
 * itself, in the same process) reads are checked with process_vm_readv,
 * which needs no descriptor.  libunwind's pipe, opened once by its
 * initialisation, is closed again at start: nothing uses it.
 */
#ifndef TRMS_UNWIND_H
#define TRMS_UNWIND_H

#include <stdbool.h>
#include <stdint.h>
#include <ucontext.h>

#include "modules.h"

/* Where a thread's stack lies: [lo, hi); lo is 0 where only the top is
 * known (the main thread, whose stack grows). */
struct unwind_stack {
	uintptr_t lo, hi;
};

/* Set libunwind up and give it the accessor, once, when a stack is first
 * to be walked: its set-up touches some forty kilobytes and opens
 * descriptors, which most short processes never need.  It opens and
 * closes descriptors, so in a signal handler (@in_handler) call it only
 * while no other thread can open any (a single-threaded process); there
 * it gives up rather than wait.  @return 0 when libunwind is ready, 1 if
 * the handler could not try now, -1 if libunwind cannot be used. */
int unwind_prepare(bool in_handler);

/* Is libunwind set up?  Async-signal-safe. */
bool unwind_ready(void);

/* The calling thread's stack, for unwind_frames.  Not async-signal-safe
 * (it may allocate); call it where the thread starts.  @main: the thread
 * is the process's initial thread. */
void unwind_stack_of_self(struct unwind_stack *stack, bool main);

/* The frames of the context @uc of the calling thread (@signal_frame: an
 * interrupted context handed to a signal handler, whose first address is
 * not a return address), leaf first, into @ip and @sp: the addresses of
 * callers point into their call instruction (return address - 1).
 * @objects: the loaded objects, held for the walk (modules_walk_begin).
 * Async-signal-safe and free of system calls (but for libunwind's memory
 * pool growing, rarely).  @return the number of frames (0: none). */
unsigned unwind_frames(const struct unwind_stack *stack,
		       const struct modules_view *objects, ucontext_t *uc,
		       bool signal_frame, uintptr_t *ip, uintptr_t *sp,
		       unsigned max);

/* The frames of the calling thread at the caller of this function, as
 * unwind_frames; for normal context, not signal handlers. */
unsigned unwind_frames_here(const struct unwind_stack *stack,
			    const struct modules_view *objects, uintptr_t *ip,
			    uintptr_t *sp, unsigned max);

/* The program set (or removed, @size 0) an alternate signal stack for the
 * calling thread. */
void unwind_note_alt_stack(const void *base, size_t size);

#endif
