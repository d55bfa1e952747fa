/*
 * trms.h - the public interface of libtrms, an input-sensitive profiler.
 *
 * A program annotates code regions and the memory they work on; libtrms
 * measures, for every activation of every region, the size of its input
 * (the threaded read memory size, trms, and the single-thread read memory
 * size, rms) and its cost, and writes a profile that aggregates cost by
 * input size.  See README.md for a tour and docs/ for the details.
 *
 * Conventions for every function below:
 *  - 0 means success; failures are negative errno values (-EINVAL, ...).
 *  - Calls apply to the calling thread: each thread has its own stack of
 *    open regions.  Every function is thread-safe.
 *  - Nothing here aborts the program.  Misuse (a NULL name, an unmatched
 *    end, ...) is reported once on stderr and returned as an error code; the
 *    profiler keeps its state consistent and the program keeps running.
 *  - When the profiler is inert (TRMS_OFF=1, a secure-execution process) or
 *    turned off with trms_disable(), calls return 0 and record nothing.
 *  - A call made from a signal handler that interrupted another trms call
 *    on the same thread is ignored and returns -EBUSY.
 *  - With GCC or Clang, trms_region_begin, trms_region_end, trms_read and
 *    trms_write are inline functions (below) that decide without a call
 *    what needs no measuring: an activation that is not measured
 *    (TRMS_ACTIVATION_SAMPLE, TRMS_BUDGET, TRMS_PARTITION, TRMS_OFF) and
 *    the accesses outside measured activations.  Such a call checks no
 *    argument and returns 0.  Define TRMS_NO_INLINE before including this
 *    header to call the library every time (a program that declares the
 *    functions weak, to run without the library, must: see
 *    examples/trms_weak.h).
 *
 * Exported symbols are exactly the functions declared here and the two
 * variables the inline functions read (trms_thread_gate_v1_ and
 * trms_process_gate_v1_, below).
 */
#ifndef TRMS_H
#define TRMS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TRMS_VERSION_MAJOR 0
#define TRMS_VERSION_MINOR 1
#define TRMS_VERSION_PATCH 0

/* The version this header describes, as one comparable integer. */
#define TRMS_VERSION \
	((TRMS_VERSION_MAJOR << 16) | (TRMS_VERSION_MINOR << 8) | TRMS_VERSION_PATCH)

#if defined(__GNUC__) || defined(__clang__)
#define TRMS_API __attribute__((visibility("default")))
#else
#define TRMS_API
#endif

/*
 * trms_version - the version of the library actually loaded.
 *
 * @return a static string "MAJOR.MINOR.PATCH"; never NULL.
 * Thread-safety: safe from any thread and from signal handlers.
 */
TRMS_API const char *trms_version(void);

/*
 * trms_region_begin - open an activation of the region called @name on the
 * calling thread.  Regions nest: an activation's input and cost include
 * those of the activations opened inside it on the same thread.
 *
 * Regions are identified by the text of @name.  The library remembers the
 * pointer it was given: a name in read-only memory (a string literal) is
 * recognised by its address alone, without reading the text again, so
 * annotating with literals costs no string hashing or comparison.  A name in
 * writable memory (a buffer that is reused for other names) is compared
 * with the text remembered for that address on every call, so regions named
 * through the same buffer are still told apart.  The text is copied; @name
 * need not outlive the call.
 *
 * @return 0 on success;
 *         -EINVAL if @name is NULL or empty;
 *         -ENOMEM if the region stack cannot grow (nesting deeper than
 *          about a million levels, or the system is out of memory);
 *         -EBUSY  if called from a signal handler that interrupted a trms
 *          call on the same thread.
 * Thread-safety: thread-safe; the activation belongs to the calling thread.
 */
TRMS_API int trms_region_begin(const char *name);

/*
 * trms_region_end - close the innermost open activation of the calling
 * thread and record its input size and cost.
 *
 * @name must name the innermost open region (same text as given to
 * trms_region_begin), or be NULL to close whatever region is innermost.
 * On a mismatch nothing changes: the stack of open regions is left as it
 * was and one diagnostic is printed on stderr.
 *
 * @return 0 on success;
 *         -EINVAL if @name does not match the innermost open region, or the
 *          calling thread has no open region (for example because the
 *          region was opened on another thread);
 *         -EBUSY  as for trms_region_begin.
 * Thread-safety: thread-safe; acts on the calling thread's regions only.
 */
TRMS_API int trms_region_end(const char *name);

/*
 * trms_read - record that the calling thread read @size bytes at @addr.
 *
 * Every open activation of the calling thread counts the cells of the range
 * that are new to it (never accessed by it, or written by another thread or
 * by the kernel since it last accessed them) in its input size.  The memory
 * is not accessed; only its address matters.  @size 0 is a no-op.
 *
 * @return 0 on success;
 *         -EINVAL if @addr is NULL with @size > 0, or the range wraps
 *          around or ends beyond the 47-bit user address space;
 *         -ENOMEM if shadow memory cannot be allocated (the range is then
 *          not recorded; the failure is reported once);
 *         -EBUSY  as for trms_region_begin.
 * Thread-safety: thread-safe; may run in parallel with any other call.
 */
TRMS_API int trms_read(const void *addr, size_t size);

/*
 * trms_write - record that the calling thread wrote @size bytes at @addr.
 *
 * A write is not input for the writer, but it makes the cells new input
 * for every other thread that reads them afterwards.
 *
 * @return as for trms_read.
 * Thread-safety: as for trms_read.
 */
TRMS_API int trms_write(const void *addr, size_t size);

/*
 * trms_thread_name - name the calling thread in the profile.
 *
 * Threads are otherwise shown by their ordinal (0 for the main thread, then
 * in the order the library first saw them).  The text is copied and cut at
 * 63 bytes; calling again renames the thread.
 *
 * @return 0 on success;
 *         -EINVAL if @name is NULL or empty;
 *         -EBUSY  as for trms_region_begin.
 * Thread-safety: thread-safe; names the calling thread only.
 */
TRMS_API int trms_thread_name(const char *name);

/*
 * trms_flush - write the profile now, to the path given by TRMS_OUTPUT
 * (default "%e.%p.trms": %e is the executable's name, %p the process id).
 *
 * The file is replaced atomically: a reader sees the previous profile or
 * the new one, never a mix.  Activations still open are not included; they
 * are recorded when they end, and the profile is written again at exit.
 *
 * @return 0 on success;
 *         a negative errno from creating, writing or renaming the file
 *          (-EACCES, -ENOSPC, -EEXIST if the temporary file name is taken,
 *          -ELOOP if the path is a symbolic link, ...);
 *         -EBUSY  as for trms_region_begin.
 * Thread-safety: thread-safe; other threads keep running while the profile
 *         is written, and what they record meanwhile may or may not be in it.
 */
TRMS_API int trms_flush(void);

/*
 * trms_enable, trms_disable - resume or pause profiling for the whole
 * process.  Profiling starts enabled.
 *
 * While paused, trms_read and trms_write record nothing, and activations
 * are not recorded if any part of them ran while paused (their input size
 * would be wrong).  Regions may still be opened and closed while paused:
 * the stacks stay balanced.  Accesses made while paused are not seen, so
 * input sizes measured just after resuming may count such memory as new.
 *
 * @return 0 on success (also when already in the requested state).
 * Thread-safety: thread-safe; takes effect for all threads immediately.
 */
TRMS_API int trms_enable(void);
TRMS_API int trms_disable(void);

/*
 * trms_sampling_enable, trms_sampling_disable - resume or pause the
 * sampling of call stacks for the whole process (every thread's timer).
 * Sampling starts enabled when TRMS_SAMPLE_HZ is above 0 (the default);
 * with TRMS_SAMPLE_HZ=0 these calls do nothing.  Sending the process the
 * signal named by TRMS_SAMPLE_SIGNAL toggles the same switch.
 *
 * @return 0 (also when already in the requested state).
 * Thread-safety: thread-safe, and async-signal-safe.
 */
TRMS_API int trms_sampling_enable(void);
TRMS_API int trms_sampling_disable(void);

/*
 * The inline forms (GCC and Clang, unless TRMS_NO_INLINE is defined).
 *
 * They read two variables of the library's, which are not an interface of
 * their own: programs must not use them, and their layout is the one of
 * this header's version ("v1"; a library with another layout exports them
 * under another name, so that a program built against this header cannot
 * run with it by mistake).  Only the library writes them.
 *
 * trms_thread_gate_v1_ (thread-local, initial-exec): the calling thread's
 *   - mode: TRMS_GATE_CALL_ (0) while every begin and end goes to the
 *     library (every activation measured, or a thread the library has
 *     not seen yet); TRMS_GATE_OFF_ when it records nothing for this
 *     thread (TRMS_OFF, secure execution, a thread past its exit): every
 *     call returns 0 at once; TRMS_GATE_SKIP_ when some begins may be
 *     skipped (the slots, below);
 *   - quiet: bit 0, reads need not be recorded (no measured activation is
 *     open on this thread); bit 1, nor writes, unless another thread
 *     measures an activation that touched their memory (below);
 *   - slot[]: for a few regions (by the address of their name), how many
 *     of their next activations that begin outside any measured one are
 *     not measured: such a begin only notes the name and the stack
 *     pointer in name[] and sp[], top counting them (at most
 *     TRMS_GATE_DEPTH_), and its end, finding its name on top (above
 *     base, the activations the library keeps), only takes it off.
 * trms_process_gate_v1_: measuring, the number of threads that have a
 *   measured activation open now, and watched, a bitmap of the 1 MiB
 *   blocks of memory such activations have touched: a write elsewhere
 *   while they run changes nothing they measure.
 *
 * Zero everywhere (a thread the library has not seen yet) sends every
 * call to the library, which then fills them in.
 */
#define TRMS_GATE_SLOTS_ 8
#define TRMS_GATE_DEPTH_ 16
#define TRMS_GATE_READS_ 1u
#define TRMS_GATE_WRITES_ 2u
#define TRMS_GATE_CALL_ 0ul
#define TRMS_GATE_OFF_ 1ul
#define TRMS_GATE_SKIP_ 2ul

struct trms_gate_slot_v1_ {
	const char *name;
	unsigned long skip;
};

struct trms_thread_gate_v1_ {
	unsigned long mode;
	unsigned long quiet;
	unsigned long top;
	unsigned long base;
	struct trms_gate_slot_v1_ slot[TRMS_GATE_SLOTS_];
	const char *name[TRMS_GATE_DEPTH_];
	unsigned long sp[TRMS_GATE_DEPTH_];
};

struct trms_process_gate_v1_ {
	unsigned long measuring;
	const unsigned long *watched;
};

/* The slot of the region named @name (64 - 3: eight slots). */
#define TRMS_GATE_SLOT_(name)                                              \
	((unsigned long)(((unsigned long long)(__SIZE_TYPE__)(name) *       \
			  0x9e3779b97f4a7c15ull) >> 61))

#if (defined(__GNUC__) || defined(__clang__)) && !defined(TRMS_NO_INLINE)
extern __thread struct trms_thread_gate_v1_ trms_thread_gate_v1_
	__attribute__((tls_model("initial-exec")));
extern struct trms_process_gate_v1_ trms_process_gate_v1_;

/* The library's functions under second names, the ones the inline forms
 * call once they have found the library needed (not an interface of
 * their own either: the same functions, less the tests the inline forms
 * made already).  Not the functions' own names: Clang will not inline a
 * function whose body calls its own symbol, and would call the library
 * every time. */
extern int trms_region_begin_v1_(const char *name);
extern int trms_region_end_v1_(const char *name);

/*
 * The read and write entries are declared pure, which they are not, so
 * that a loop whose only calls are these keeps the gate's flags in a
 * register instead of loading them for every element (a loop of under a
 * nanosecond an element: GCC -O2 and Clang -O2 load them after each
 * iteration otherwise, since the call on the slow path may write any
 * memory).  What the lie lets the compiler assume is true of every value
 * the program reads: these calls write none of the program's memory.  Of
 * the gate's, they change only the flags of a thread the library has not
 * seen yet, from "call" to what they should be, so a value the compiler
 * kept from before is at worst a call that was not needed; a region's
 * begin or end, which change them, are calls the compiler cannot see
 * through.  Two things pure would allow and the inline forms stop: their
 * result goes through an empty volatile asm, so no call is dropped for
 * an unused result, and the asm makes the caller impure in the
 * compiler's eyes.  What remains allowed is to merge two reads of the
 * same bytes, or hoist one out of a loop, where no store, call or atomic
 * comes between: by DESIGN §2 the second changes nothing, as no write of
 * another thread can be ordered between them.
 */
extern int trms_read_v1_(const void *addr, size_t size)
	__attribute__((__pure__));
extern int trms_write_v1_(const void *addr, size_t size)
	__attribute__((__pure__));

#define TRMS_INLINE_ \
	extern __inline __attribute__((__always_inline__, __gnu_inline__))

/* The caller's stack pointer, where the region begins among its frames. */
#if defined(__x86_64__)
#define TRMS_GATE_SP_(sp) __asm__("movq %%rsp, %0" : "=r"(sp))
#elif defined(__aarch64__)
#define TRMS_GATE_SP_(sp) __asm__("mov %0, sp" : "=r"(sp))
#else
#define TRMS_GATE_SP_(sp) ((sp) = (unsigned long)__builtin_frame_address(0))
#endif

/* The gate is named, never reached through a pointer: GCC 12's
 * -fsanitize=null tests a pointer to a thread-local variable with flags
 * left over from an earlier instruction and reports a null pointer that is
 * not there. */
#define TRMS_GATE_ trms_thread_gate_v1_

TRMS_INLINE_ int trms_region_begin(const char *name)
{
	unsigned long mode = TRMS_GATE_.mode;

	/* Every begin measured: straight to the library, one test. */
	if (mode == TRMS_GATE_CALL_)
		return trms_region_begin_v1_(name);
	if (__builtin_expect(mode == TRMS_GATE_SKIP_, 1)) {
		unsigned long i = TRMS_GATE_SLOT_(name);
		unsigned long top = TRMS_GATE_.top;
		if (__builtin_expect(TRMS_GATE_.slot[i].name == name &&
					     TRMS_GATE_.slot[i].skip != 0 &&
					     top < TRMS_GATE_DEPTH_,
				     1)) {
			unsigned long sp;
			TRMS_GATE_SP_(sp);
			TRMS_GATE_.slot[i].skip--;
			TRMS_GATE_.name[top] = name;
			TRMS_GATE_.sp[top] = sp;
			TRMS_GATE_.top = top + 1;
			return 0;
		}
	} else if (mode == TRMS_GATE_OFF_) {
		return 0;
	}
	return trms_region_begin_v1_(name);
}

TRMS_INLINE_ int trms_region_end(const char *name)
{
	unsigned long mode = TRMS_GATE_.mode;

	if (mode == TRMS_GATE_CALL_)
		return trms_region_end_v1_(name);
	if (__builtin_expect(mode == TRMS_GATE_SKIP_, 1)) {
		unsigned long top = TRMS_GATE_.top;
		if (__builtin_expect(top > TRMS_GATE_.base &&
					     TRMS_GATE_.name[top - 1] == name,
				     1)) {
			TRMS_GATE_.top = top - 1;
			return 0;
		}
	} else if (mode == TRMS_GATE_OFF_) {
		return 0;
	}
	return trms_region_end_v1_(name);
}

TRMS_INLINE_ int trms_read(const void *addr, size_t size)
{
	if (__builtin_expect(trms_thread_gate_v1_.quiet & TRMS_GATE_READS_, 1))
		return 0;
	int rc = trms_read_v1_(addr, size);
	__asm__ __volatile__("" : "+r"(rc));
	return rc;
}

/* May a write of @size bytes at @addr go unrecorded? */
TRMS_INLINE_ int trms_gate_write_free_(const void *addr, size_t size)
{
	const struct trms_process_gate_v1_ *p = &trms_process_gate_v1_;
	unsigned long first = (unsigned long)(__SIZE_TYPE__)addr;
	unsigned long last = first + size - 1;

	if (__builtin_expect(p->measuring == 0, 1))
		return 1;
	if (size == 0 || last < first || (first >> 20) != (last >> 20) ||
	    last >> 47)
		return 0;
	return !((p->watched[first >> 26] >> ((first >> 20) & 63)) & 1);
}

TRMS_INLINE_ int trms_write(const void *addr, size_t size)
{
	if (__builtin_expect(trms_thread_gate_v1_.quiet & TRMS_GATE_WRITES_,
			     1) &&
	    trms_gate_write_free_(addr, size))
		return 0;
	int rc = trms_write_v1_(addr, size);
	__asm__ __volatile__("" : "+r"(rc));
	return rc;
}
#endif

/*
 * Scoped regions (GCC and Clang).  Both forms end the region however the
 * scope is left: falling off the end, break, return or goto.
 *
 *	TRMS_REGION("parse") {
 *		...
 *	}
 *
 *	void parse(void) {
 *		TRMS_SCOPED_REGION("parse");
 *		...
 *	}
 *
 * The region is ended only if it was begun successfully.  TRMS_REGION is a
 * one-pass for loop: a break or continue directly inside its block leaves
 * the block (ending the region), not an enclosing loop.
 */
#if defined(__GNUC__) || defined(__clang__)
struct trms_scope_ {
	const char *name;
	int begun;
	int once;
};

static inline struct trms_scope_ trms_scope_begin_(const char *name)
{
	struct trms_scope_ scope = { name, trms_region_begin(name) == 0, 1 };
	return scope;
}

static inline void trms_scope_end_(struct trms_scope_ *scope)
{
	if (scope->begun)
		trms_region_end(scope->name);
}

#define TRMS_CONCAT2_(a, b) a##b
#define TRMS_CONCAT_(a, b) TRMS_CONCAT2_(a, b)

#define TRMS_REGION(name)                                                   \
	for (struct trms_scope_ TRMS_CONCAT_(trms_scope_, __LINE__)         \
	     __attribute__((cleanup(trms_scope_end_))) =                    \
		     trms_scope_begin_(name);                               \
	     TRMS_CONCAT_(trms_scope_, __LINE__).once;                      \
	     TRMS_CONCAT_(trms_scope_, __LINE__).once = 0)

#define TRMS_SCOPED_REGION(name)                                            \
	struct trms_scope_ TRMS_CONCAT_(trms_scope_, __LINE__)              \
		__attribute__((cleanup(trms_scope_end_))) =                 \
			trms_scope_begin_(name)
#endif

#ifdef __cplusplus
}
#endif

#endif /* TRMS_H */
