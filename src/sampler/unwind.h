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

#include "sampler/modules.h"

/* Where a thread's stack lies: [lo, hi); lo is 0 where only the top is
 * known (the main thread, whose stack grows). */
struct unwind_stack {
	uintptr_t lo, hi;
};

/* Open libunwind, set it up and give it the accessor, once, when a stack
 * is first to be walked: loading it (and the liblzma it needs) and its
 * set-up cost a short process more than everything else the library
 * does, and most short processes never take a sample.  For normal
 * context (not a signal handler).  @return 0 when libunwind is ready, -1
 * if it cannot be used. */
int unwind_prepare(void);

/* The same from the sampling signal's handler, which interrupted @uc on
 * the calling thread (its stack @stack), in a process of one thread: only
 * where opening an object cannot wait for a lock that the interrupted
 * code holds (see unwind.c).  @passing: the thread is inside a wrapped
 * call passed on to the C library, which holds none of its locks.
 * @return 0 when ready, 1 if not here (a later sample may), -1 if
 * libunwind cannot be used. */
int unwind_prepare_interrupting(const struct unwind_stack *stack,
				const ucontext_t *uc, bool passing);

/* May libunwind be left until a sample needs it?  Not when the program
 * allocates with an allocator of its own, which its code (anywhere) may
 * be inside when a sample comes: then set it up at start.  Not
 * async-signal-safe. */
bool unwind_may_wait(void);

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

/* A sample's interrupted context and stack, saved while libunwind is not
 * open yet, to be walked once it is. */
struct unwind_saved {
	ucontext_t uc;
	uintptr_t lo; /* the stack saved: [lo, lo + len), at bytes */
	size_t len;
	const unsigned char *bytes;
};

/* Save the context @uc, interrupted on the calling thread (its stack
 * @stack), into @out, and its stack (from just below its stack pointer to
 * the top) into @bytes, which holds @cap bytes.  Async-signal-safe.
 * @return false if the stack is not one known or does not fit. */
bool unwind_save(const struct unwind_stack *stack, const ucontext_t *uc,
		 struct unwind_saved *out, unsigned char *bytes, size_t cap);

/* The frames of a saved context, as unwind_frames gives them: the code
 * it ran must still be loaded. */
unsigned unwind_saved_frames(const struct unwind_saved *saved,
			     const struct modules_view *objects, uintptr_t *ip,
			     uintptr_t *sp, unsigned max);

/* The frames of the calling thread at the caller of this function, as
 * unwind_frames; for normal context, not signal handlers. */
unsigned unwind_frames_here(const struct unwind_stack *stack,
			    const struct modules_view *objects, uintptr_t *ip,
			    uintptr_t *sp, unsigned max);

/* The program set (or removed, @size 0) an alternate signal stack for the
 * calling thread. */
void unwind_note_alt_stack(const void *base, size_t size);

#endif
