/*
 * engine.h - exact trms and rms of every activation, for threads that run
 * truly in parallel (DESIGN §3-§4).
 *
 * An engine owns the global write stamps and the write clock; each thread
 * that reports events has an engine_thread with its shadow stack and its
 * own access stamps.  Operations on an engine_thread must come from one OS
 * thread at a time (its owner; the replay tool drives many engine_threads
 * from one OS thread); operations on different engine_threads may run in
 * parallel.
 *
 * Every access is an operation, a read-side critical section of
 * userspace RCU: when the stamps run out, the thread that notices waits
 * for all operations in flight to finish, holds new ones back, renumbers
 * every stamp, and lets them go.  Calls and returns are not operations:
 * a call pushes a frame without a stamp, which the thread's next access
 * gives it (see stamp_frames in trms.c), and a return only adds partial
 * counts.  Nothing else is shared on the hot path: calls, returns and
 * reads touch only the calling thread's state and read the write stamps.
 */
#ifndef TRMS_ENGINE_H
#define TRMS_ENGINE_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef _LGPL_SOURCE
#define _LGPL_SOURCE /* liburcu's read-side fast paths, inlined */
#endif
#include <urcu-bp.h>
#include <urcu/list.h>

#include "engine/cells.h"
#include "engine/owners.h"
#include "shadow.h"
#include "engine/stamp.h"

struct engine_config {
	unsigned granularity; /* K: bytes per cell, 1, 2, 4, 8 or 16 */
	unsigned stamp_bits;  /* STAMP_MIN_BITS..TRMS_STAMP_BITS; 0: all */
};

/* One pending activation.  The four counters are partial values: an
 * activation's current value is the sum of its entry and all entries above
 * it (DESIGN §3, the invariant of the papers' Eq. 2). */
struct __attribute__((aligned(16))) frame {
	int64_t trms;
	int64_t rms;
	int64_t induced_thread;
	int64_t induced_external;
	stamp_t ts;
	uint32_t region;
	uint32_t tag; /* the caller's, handed back when the activation ends */
	uint64_t cost_start;
	/* The caller's, with costs in time: its cost meter's readings when
	 * the activation began (see cost.h: the library's time excluded so
	 * far, and of it the part measured). */
	uint64_t excluded_start, measured_start;
	const void *key; /* the caller's, e.g. the name pointer it began with */
	uintptr_t cfa;   /* the caller's stack pointer when it began (to place
			    the region among the frames of a sampled stack) */
	uint32_t gate_base; /* the caller's (the gate's base below it: gate.h) */
};

/* A completed activation. */
struct activation {
	uint32_t region;
	uint32_t tag;
	uint64_t trms;
	uint64_t rms;
	uint64_t induced_thread;
	uint64_t induced_external;
	uint64_t cost;
	/* The caller's, with costs in time (0 from the engine): the library's
	 * time taken out of the cost, and the part of it estimated. */
	uint64_t library, estimated;
};

struct engine {
	unsigned granularity;
	unsigned cell_shift;
	struct stamp_layout stamps;
	stamp_t g_mask; /* clears the local part of a stamp */
	_Atomic uint64_t g; /* the global write clock */
	struct shadow_pool pool;
	struct shadow_map wts;
	/* Which threads touched each chunk: a write where its thread is
	 * the only one takes the thread's current stamp (owners.h). */
	struct owners owners;
	atomic_uint owner_ids; /* given out so far */

	pthread_mutex_t threads_lock; /* guards threads */
	struct cds_list_head threads;

	/* While *single_writer is nonzero only one thread writes (the
	 * process has one thread): a write then needs no fresh value of the
	 * write clock.  The clock orders one thread's writes against other
	 * threads' reads; alone, a thread's write may take its current
	 * stamp, which keeps the written cells in its pending activations
	 * and not newer than itself, while a kernel write still takes a
	 * fresh value.  The flag must turn 0 (for good) before a second
	 * thread can write, by the thread that makes it; NULL: never. */
	const volatile char *_Atomic single_writer;
	/* Keep each thread's engine_fast up to date (a program with checks
	 * compiled in, engine_fast.h); off: it stays ENGINE_FAST_OFF. */
	atomic_bool fast_on;

	/* Taken by a renumbering, and by engine_forget (which changes the
	 * maps a renumbering walks). */
	pthread_mutex_t renumber_lock;
	/* What an operation must see to first: ENGINE_RENUMBERING while a
	 * renumbering is pending, and above it the number of times memory
	 * was forgotten (engine_forget, in steps of ENGINE_FORGOT), after
	 * which a thread's cached chunks may have left their maps.  Each
	 * thread compares it with what it saw last (attention_seen). */
	atomic_uint attention;
	atomic_ulong renumbers;
	atomic_bool exhausted; /* renumbering could not make room: stopped */
	/* Chunks taken out of their maps by engine_forget, given back to
	 * the pool once no thread can hold them (forget.c); renumber_lock
	 * held. */
	struct engine_limbo {
		struct limbo_chunk {
			stamp_t *chunk;
			unsigned attention; /* after their forgetting */
		} *chunks;
		size_t n, capacity;
	} limbo;
	atomic_size_t forgotten_bytes; /* shadow given back so far */
};

#define ENGINE_RENUMBERING 1u
#define ENGINE_FORGOT 2u

/*
 * A thread's state for the checks compiled into a program (engine_fast.h,
 * `trms cc --trms-full` with Clang): a copy of what the common accesses
 * need, refreshed by the engine's own operations.  While @top is
 * ENGINE_FAST_OFF every access goes through engine_read and engine_write.
 */
#define ENGINE_FAST_SLOTS 64
#define ENGINE_FAST_OFF ((stamp_t)-1)

/* No chunk of the address space has this number. */
#define ENGINE_FAST_NO_CHUNK ((uintptr_t)-1)

struct engine_fast_slot {
	uintptr_t chunk; /* address >> SHADOW_CHUNK_ADDR_BITS, or NO_CHUNK */
	stamp_t *own;    /* the thread's stamps of the chunk's cells */
	stamp_t *wts;    /* their write stamps */
};

struct engine_fast {
	stamp_t top;    /* the innermost activation's stamp (0: none) */
	stamp_t parent; /* the one below it (the sentinel's 0 at depth 1) */
	stamp_t now;    /* the thread's current stamp */
	stamp_t g_mask;
	/* First accesses and writes may be made inline too, while
	 * *single is nonzero: only while one thread writes (struct
	 * engine's single_writer, read at each access: the thread that
	 * makes a second one clears it, whoever's code does), which also
	 * means no renumbering can run beside them. */
	bool first_ok;
	const volatile char *single;
	/* (While the thread is inside the library, a signal handler's
	 * compiled-in checks must not use the copy: the library's busy flag
	 * of the thread says so, at a fixed distance: inline_checks.h.) */
	struct frame *top_frame, *parent_frame;
	struct engine_fast_slot slot[ENGINE_FAST_SLOTS];
};

/* What code with compiled-in checks assumes of these structures: it
 * hands the number to the library, which turns the checks on only if it
 * has the same (see inline_checks.c). */
#define ENGINE_FAST_ABI                                                  \
	(1000003u * 1u + 7919u * (unsigned)sizeof(struct engine_fast) +  \
	 131u * (unsigned)offsetof(struct engine_thread, fast) +          \
	 31u * (unsigned)offsetof(struct engine_thread, events) +         \
	 (unsigned)sizeof(stamp_t))

struct engine_thread {
	struct engine *engine;
	struct frame *stack; /* stack[0] sits below every activation: its key
			      and stamp stay 0 */
	size_t depth;        /* pending activations: stack[1..depth]; written
				atomically (a renumbering reads it) */
	size_t capacity;
	/* Pushes below this depth take the fast path: the capacity, or 0
	 * while a tracer describes every operation (engine_trace_set). */
	size_t push_limit;
	size_t unstamped;    /* the innermost activations not stamped yet */
	stamp_t now;         /* the largest stamp this thread has used */
	uint64_t events;     /* access operations issued so far */
	uint64_t slow_ticks; /* clock time spent allocating memory */
	struct shadow_map ts;
	struct shadow_cache ts_cache;
	struct shadow_cache wts_cache;
	struct cds_list_head link;
	struct engine_fast fast;
	uint32_t owner_id; /* the thread's number in the engine's owners */
	struct owners_memo owned; /* its last owner word looked up */
	/* The engine's attention, less ENGINE_RENUMBERING, when this thread
	 * last emptied its caches (written by the thread, read by others). */
	unsigned attention_seen;
	/* The thread's read-side state in liburcu-bp (its nesting of
	 * critical sections), once it has made an operation: whether it is
	 * inside one now (forget.c). */
	const unsigned long *rcu_ctr;
};

/* See struct engine's fast_on; set before the threads that matter
 * access memory. */
static inline void engine_set_fast(struct engine *e, bool on)
{
	atomic_store_explicit(&e->fast_on, on, memory_order_release);
}

/* Before the process's second thread starts (normal context): lets the
 * writes of threads alone in their memory skip a full fence each
 * (owners.h).  Only while the process has one thread: a writer that
 * skipped its fence must never meet a newcomer that did not fence it. */
static inline void engine_prepare_threads(struct engine *e)
{
	const volatile char *single =
		atomic_load_explicit(&e->single_writer, memory_order_relaxed);

	if (single && *single)
		owners_prepare(&e->owners);
}

/* In the child of a fork (see owners_after_fork_child). */
static inline void engine_after_fork_child(struct engine *e)
{
	owners_after_fork_child(&e->owners);
}

/* See struct engine's single_writer. */
static inline void engine_set_single_writer(struct engine *e,
					    const volatile char *flag)
{
	atomic_store_explicit(&e->single_writer, flag, memory_order_release);
}

/* Deepest nesting an engine_thread accepts. */
#define ENGINE_MAX_DEPTH ((size_t)1 << 20)

/* @return 0, -EINVAL for an unsupported granularity or stamp width,
 * -ENOMEM. */
int engine_init(struct engine *e, const struct engine_config *config);
/* Every engine_thread of @e must have been finished. */
void engine_fini(struct engine *e);

/* @return 0 or -ENOMEM. */
int engine_thread_init(struct engine *e, struct engine_thread *t);
/* Forget @t, its pending activations and its access stamps. */
void engine_thread_fini(struct engine_thread *t);

/*
 * Tracing (TRMS_TRACE, for checking the engine on small programs against
 * the definitions): while a tracer is set, every operation of every
 * thread takes one lock, runs, and is described to the tracer before the
 * lock is let go, so the description is in the very order the engine
 * worked in (a return, which touches only its own thread's counts, is
 * described without holding the lock across it).  The fast paths below
 * step aside to the out-of-line ones, where this happens.
 */
enum engine_trace_op {
	ENGINE_TRACE_CALL,   /* a: the region */
	ENGINE_TRACE_RETURN,
	ENGINE_TRACE_READ,   /* a, b: address and size */
	ENGINE_TRACE_WRITE,
	ENGINE_TRACE_KWRITE,
};

struct engine_tracer {
	void (*emit)(void *ctx, const struct engine_thread *t,
		     enum engine_trace_op op, uint64_t a, uint64_t b);
	void *ctx;
};

/* The tracer, or NULL (nearly always). */
extern struct engine_tracer *engine_tracer;

/* Set @tracer (before the threads that matter start), or stop tracing
 * (NULL): when engine_trace_set(NULL) returns, no operation is being
 * described any more. */
void engine_trace_set(struct engine_tracer *tracer);

/* Describe a return of @t (engine_pop). */
void engine_trace_return(const struct engine_thread *t);

/* Open an activation of @region.  @cost_now is the caller's cost clock;
 * the activation's cost is the clock at its return minus this.  @key is
 * kept in the frame for the caller.
 * @return 0, -ENOMEM (stack cannot grow). */
static inline int engine_call(struct engine_thread *t, uint32_t region,
			      uint32_t tag, const void *key, uintptr_t cfa,
			      uint64_t cost_now);

/* Close the innermost activation and describe it in @out.
 * @return 0, -ENOENT if no activation is pending. */
static inline int engine_return(struct engine_thread *t, uint64_t cost_now,
				struct activation *out);

/* Close the innermost activation (there must be one) and return its frame,
 * whose counters are now final; it stays valid until the next call. */
static inline const struct frame *engine_pop(struct engine_thread *t);

/* The access events of DESIGN §2 on the cells of [addr, addr + size).
 * A kread is a read.  @return 0, -EINVAL if the range leaves the address
 * space, -ENOMEM, -EOVERFLOW (stamps exhausted). */
static inline int engine_read(struct engine_thread *t, uintptr_t addr,
			      size_t size);
/* engine_read's common case, inline: see below.  @return true if done,
 * false (having done nothing) if engine_read_slow must do it. */
static inline bool engine_try_read(struct engine_thread *t, uintptr_t addr,
				   size_t size);
/* engine_read when engine_try_read does not apply. */
int engine_read_slow(struct engine_thread *t, uintptr_t addr, size_t size);
int engine_write(struct engine_thread *t, uintptr_t addr, size_t size);
int engine_kwrite(struct engine_thread *t, uintptr_t addr, size_t size);

/* One access operation (an annotation call, a system call) for the cost in
 * events, however many ranges it touches. */
static inline void engine_count_event(struct engine_thread *t)
{
	t->events++;
}

static inline const struct frame *engine_top(const struct engine_thread *t)
{
	return t->depth ? &t->stack[t->depth] : NULL;
}

/* Set the cost clock reading the innermost activation started at, and
 * the caller's meter readings with it (for callers that read their clock
 * only after engine_call). */
static inline void engine_set_cost_start(struct engine_thread *t,
					 uint64_t cost, uint64_t excluded,
					 uint64_t measured)
{
	struct frame *f = &t->stack[t->depth];

	f->cost_start = cost;
	f->excluded_start = excluded;
	f->measured_start = measured;
}

static inline size_t engine_shadow_bytes(struct engine *e)
{
	return atomic_load_explicit(&e->pool.bytes_in_use,
				    memory_order_relaxed) +
	       atomic_load_explicit(&e->owners.bytes, memory_order_relaxed);
}

static inline unsigned long engine_renumber_count(struct engine *e)
{
	return atomic_load_explicit(&e->renumbers, memory_order_relaxed);
}

/* The cells of [@addr, @addr + @size) are forgotten: never accessed by
 * any thread nor written, as if the memory were new (unmapped memory,
 * mapped again).  Called by thread @self (or NULL), outside any
 * operation; the shadow it no longer needs goes back to the pool once
 * no thread can be using it.  (forget.c) */
void engine_forget(struct engine *e, struct engine_thread *self,
		   uintptr_t addr, size_t size);

/* The same for @n ranges [start, end) at once. */
struct engine_range {
	uintptr_t start, end;
};

void engine_forget_ranges(struct engine *e, struct engine_thread *self,
			  const struct engine_range *ranges, size_t n);

/* Give back what engine_forget took, where no thread can hold it any
 * more (called again by later forgets, and at a thread's end). */
void engine_forget_reclaim(struct engine *e);

/* @t (outside any operation, or its own operation's start) drops the
 * chunks it cached, having seen the engine's attention at @attention. */
void engine_thread_drop_caches(struct engine_thread *t, unsigned attention);

/* Renumber every stamp of @e (DESIGN §3, last paragraph); called by an
 * operation that found the write clock exhausted, outside any operation.
 * @return 0, or -EOVERFLOW if even renumbering leaves no room. */
int engine_renumber(struct engine *e);

/* engine_call when the stack must grow. */
int engine_call_slow(struct engine_thread *t, uint32_t region, uint32_t tag,
		     const void *key, uintptr_t cfa, uint64_t cost_now);

/* Push the frame of a new activation, not yet stamped (see
 * stamp_frames in trms.c).  A renumbering may be reading the stack: the
 * stamp is stored atomically, and the depth after the frame. */
static inline void engine_push(struct engine_thread *t, uint32_t region,
			       uint32_t tag, const void *key, uintptr_t cfa,
			       uint64_t cost_now)
{
	struct frame *f = &t->stack[t->depth + 1];

	__atomic_store_n(&f->ts, 0, __ATOMIC_RELAXED);
	f->region = region;
	f->tag = tag;
	f->key = key;
	f->cfa = cfa;
	f->cost_start = cost_now;
	f->trms = f->rms = f->induced_thread = f->induced_external = 0;
	t->unstamped++;
	t->fast.top = ENGINE_FAST_OFF;
	__atomic_store_n(&t->depth, t->depth + 1, __ATOMIC_RELEASE);
}

/* engine_call's common case: room on the stack.  @return true if the
 * activation was opened, false (having done nothing) if engine_call_slow
 * must do it. */
static inline bool engine_try_call(struct engine_thread *t, uint32_t region,
				   uint32_t tag, const void *key,
				   uintptr_t cfa, uint64_t cost_now)
{
	if (__builtin_expect(t->depth + 1 >= t->push_limit, 0))
		return false;
	engine_push(t, region, tag, key, cfa, cost_now);
	return true;
}

static inline int engine_call(struct engine_thread *t, uint32_t region,
			      uint32_t tag, const void *key, uintptr_t cfa,
			      uint64_t cost_now)
{
	if (__builtin_expect(
		    engine_try_call(t, region, tag, key, cfa, cost_now), 1))
		return 0;
	return engine_call_slow(t, region, tag, key, cfa, cost_now);
}

/*
 * An activation the caller does not measure (selection.h), pending only
 * below every activation it measures: a frame with tag 0 that no access
 * counts for.  It gets no stamp (0 keeps the stack's stamps in order,
 * being below all the others) and its counters are never read, so the
 * push is a few stores and engine_drop only lowers the depth.  @return
 * false (nothing done) if engine_call must push it instead.
 */
static inline bool engine_try_push_uncounted(struct engine_thread *t,
					     uint32_t region, const void *key,
					     uintptr_t cfa)
{
	if (__builtin_expect(t->depth + 1 >= t->push_limit, 0))
		return false;
	struct frame *f = &t->stack[t->depth + 1];
	__atomic_store_n(&f->ts, 0, __ATOMIC_RELAXED);
	f->region = region;
	f->tag = 0;
	f->key = key;
	f->cfa = cfa;
	t->fast.top = ENGINE_FAST_OFF;
	__atomic_store_n(&t->depth, t->depth + 1, __ATOMIC_RELEASE);
	return true;
}

/* Close the innermost activation, one that no access counted for
 * (engine_try_push_uncounted's, or one only skipped frames are below),
 * without handing its counters to its parent. */
static inline void engine_drop(struct engine_thread *t)
{
	if (__builtin_expect(engine_tracer != NULL, 0))
		engine_trace_return(t);
	t->unstamped -= t->unstamped != 0;
	t->fast.top = ENGINE_FAST_OFF;
	__atomic_store_n(&t->depth, t->depth - 1, __ATOMIC_RELAXED);
}

/* A return reads and writes only partial counts, which a renumbering
 * never touches, and the depth, which it reads atomically: no RCU
 * section is needed. */
static inline const struct frame *engine_pop(struct engine_thread *t)
{
	if (__builtin_expect(engine_tracer != NULL, 0))
		engine_trace_return(t);
	size_t depth = t->depth;
	struct frame *f = &t->stack[depth];
	struct frame *parent = f - 1;

	parent->trms += f->trms;
	parent->rms += f->rms;
	parent->induced_thread += f->induced_thread;
	parent->induced_external += f->induced_external;
	/* The unstamped activations are the innermost ones. */
	t->unstamped -= t->unstamped != 0;
	t->fast.top = ENGINE_FAST_OFF;
	__atomic_store_n(&t->depth, depth - 1, __ATOMIC_RELAXED);
	return f;
}

/* @f's activation as a struct activation, with cost @cost. */
static inline void frame_activation(const struct frame *f, uint64_t cost,
				    struct activation *out)
{
	out->region = f->region;
	out->tag = f->tag;
	out->trms = (uint64_t)f->trms;
	out->rms = (uint64_t)f->rms;
	out->induced_thread = (uint64_t)f->induced_thread;
	out->induced_external = (uint64_t)f->induced_external;
	out->cost = cost;
	out->library = out->estimated = 0;
}

static inline int engine_return(struct engine_thread *t, uint64_t cost_now,
				struct activation *out)
{
	if (__builtin_expect(!t->depth, 0))
		return -ENOENT;
	const struct frame *f = engine_pop(t);
	frame_activation(f, cost_now - f->cost_start, out);
	return 0;
}

/* Runs of cells this short are decided cell by cell, inline: calling the
 * bulk loops would cost more than the cells. */
#define ENGINE_SHORT_RUN 8

/* DESIGN §3's read(ℓ) on each of @n <= ENGINE_SHORT_RUN cells, whose
 * stamps are @ts and write stamps @wts (NULL: none written), inside an
 * operation. */
void engine_read_cells(struct engine_thread *t, stamp_t *ts,
		       const stamp_t *wts, size_t n);

/*
 * Has this thread read every cell of the run at its current stamp, with
 * no other thread having written one since?  Then reading them again
 * counts nothing and stamps nothing: the common case of a loop that reads
 * the same data over and over in one activation, decided in a couple of
 * loads per cell.  (A cell stamped `now` was accessed after the innermost
 * activation began, and not induced means no newer write stamp.)
 */
static inline bool engine_read_again(const stamp_t *ts, const stamp_t *wts,
				     size_t n, stamp_t now, stamp_t g_mask)
{
	for (size_t i = 0; i < n; i++)
		if (ts[i] != now ||
		    (wts && (SHARED_LOAD(&wts[i]) & g_mask) > (now & g_mask)))
			return false;
	return true;
}

/* Inside an operation: stamp the innermost activation if it is the only
 * one without a stamp and the local part has room (the common case right
 * after a region entry; see stamp_frames in trms.c for the others).
 * @return true if every activation now has its stamp. */
static inline bool engine_stamp_top(struct engine_thread *t)
{
	if (__builtin_expect(!t->unstamped, 1))
		return true;
	if (t->unstamped > 1 || (t->now & t->engine->stamps.local_mask) ==
					t->engine->stamps.local_mask)
		return false;
	__atomic_store_n(&t->stack[t->depth].ts, t->now + 1,
			 __ATOMIC_RELAXED);
	t->now++;
	t->unstamped = 0;
	return true;
}

/* The common read: a few cells in the chunk of the thread's own stamps it
 * used last, every activation stamped (or only the innermost not yet), no
 * renumbering under way.  (Such a range is inside the
 * address space: a cached chunk is, and a range that wraps around has its
 * last cell below its first.) */
static inline bool engine_try_read(struct engine_thread *t, uintptr_t addr,
				   size_t size)
{
	struct engine *e = t->engine;
	uintptr_t first = addr >> e->cell_shift;
	uintptr_t last = (addr + size - 1) >> e->cell_shift;
	unsigned chunk_shift = SHADOW_CHUNK_ADDR_BITS - e->cell_shift;
	uintptr_t chunk = first >> chunk_shift;

	if (__builtin_expect(size == 0 || engine_tracer ||
				     last - first >= ENGINE_SHORT_RUN ||
				     (last >> chunk_shift) != chunk,
			     0))
		return false;
	/* The thread's own stamps of the chunk, from the two it used last
	 * (a loop over two arrays alternates between them). */
	stamp_t *own = shadow_cache_peek(&t->ts_cache, chunk);
	if (__builtin_expect(!own, 0))
		return false;
	/* (Used only once the engine's attention is seen unchanged below:
	 * a chunk forgotten meanwhile may have left its map.) */
	size_t offset = first & (e->pool.chunk_cells - 1);
	stamp_t *ts = own + offset;
	size_t n = last - first + 1;
	bool done = false;

	rcu_read_lock();
	if (__builtin_expect(atomic_load_explicit(&e->attention,
						  memory_order_relaxed) ==
					     t->attention_seen &&
				     engine_stamp_top(t),
			     1)) {
		const stamp_t *wts = shadow_get_cached(
			&e->wts, &t->wts_cache, chunk, false, NULL);
		if (wts)
			wts += offset;
		if (!engine_read_again(ts, wts, n, t->now, e->g_mask))
			engine_read_cells(t, ts, wts, n);
		done = true;
	}
	rcu_read_unlock();
	return done;
}

static inline int engine_read(struct engine_thread *t, uintptr_t addr,
			      size_t size)
{
	if (__builtin_expect(engine_try_read(t, addr, size), 1))
		return 0;
	return engine_read_slow(t, addr, size);
}

/* Deepest pending activation of @t whose stamp is <= @s, as an index into
 * t->stack (0 if none). */
size_t engine_frame_at(const struct engine_thread *t, stamp_t s);

#endif
