/*
 * runtime.h - the library inside a process: one engine, the threads that
 * use it, and what is needed to write the process's profile.
 */
#ifndef TRMS_RUNTIME_H
#define TRMS_RUNTIME_H

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>
#include <stdbool.h>
#include <stdint.h>

#include <urcu/list.h>

#include "trms.h"

#include "clock.h"
#include "config.h"
#include "cost.h"
#include "engine.h"
#include "profile.h"
#include "region.h"
#include "sampler.h"

#define TRMS_STRINGIFY2_(x) #x
#define TRMS_STRINGIFY_(x) TRMS_STRINGIFY2_(x)
#define TRMS_VERSION_TEXT                                                   \
	TRMS_STRINGIFY_(TRMS_VERSION_MAJOR)                                 \
	"." TRMS_STRINGIFY_(TRMS_VERSION_MINOR) "." TRMS_STRINGIFY_(        \
		TRMS_VERSION_PATCH)

#define THREAD_NAME_MAX 63
#define THREAD_CONTEXT_MAX 32

/* Where a thread came from: its number, and the creation context the
 * pthread_create hook noted (see pthread_hooks.c). */
struct thread_origin {
	uint32_t ordinal;
	bool has_creator;
	uint32_t creator;
	uint32_t context_depth;
	uint32_t context[THREAD_CONTEXT_MAX];
	/* The creator's call path, for the new thread's call tree. */
	unsigned path_len;
	struct cct_step path[SAMPLER_CONTEXT_MAX];
};

/* Everything the library keeps for one thread of the program.  Fields
 * other than those under the runtime lock are touched only by the thread
 * itself. */
struct trms_thread {
	struct engine_thread engine;
	struct profile_table profile;
	struct name_cache names;
	struct cost_meter cost;
	/* Set while the thread runs library code: a call that arrives
	 * meanwhile (from a signal handler, or from a function the library
	 * itself calls) must not touch the thread's state. */
	bool busy;
	uint64_t lookup_slow_ticks; /* time spent registering region names */
	uint32_t ordinal; /* 0 for the main thread, then creation order */
	char name[THREAD_NAME_MAX + 1]; /* under runtime.lock */
	/* Creation context: the creating thread and the regions it had open
	 * when it called pthread_create, outermost first.  Set before the
	 * thread runs, then read-only. */
	bool has_creator;
	uint32_t creator;
	uint32_t context_depth;
	uint32_t context[THREAD_CONTEXT_MAX];
	/* Data moved through the hooked calls: written by the owner with
	 * relaxed atomic stores, read by the profile writer. */
	uint64_t in_bytes, in_calls, out_bytes, out_calls;
	bool dead;        /* exited: only the profile remains */
	/* When the thread started and ended (monotonic ns; until 0 while it
	 * runs): its elapsed time, what a wall-clock sampler samples. */
	uint64_t alive_from_ns, alive_until_ns;
	struct cds_list_head link; /* in runtime.threads, by ordinal */
	struct sampler_thread sampler;
};

struct runtime {
	struct engine engine;
	/* The tag new activations get: the generation while profiling is
	 * on, 0 while it is paused (see trms_disable).  One word, so that
	 * begin reads one load. */
	atomic_uint tag;
	atomic_uint generation; /* bumped by trms_disable */
	/* The I/O hooks record what moves: from the start in a program
	 * that can open regions (annotated.h), else from the moment a region
	 * is named (see io_hooks.c for why not before). */
	atomic_bool record_io;
	pthread_mutex_t lock;   /* guards threads and next_ordinal */
	struct cds_list_head threads;
	uint32_t next_ordinal;
	pthread_key_t thread_key;
	pthread_mutex_t flush_lock;
	uint64_t start_realtime_ns;
	pid_t pid; /* the process this state belongs to (see fork) */
	atomic_bool finished; /* the final profile has been written */
	/* Calibrated at the first region begun (see api.c), then
	 * read-only. */
	uint64_t cost_floor, cost_access_floor;
	uint64_t cost_clock_read;
	uint64_t cost_estimate[COST_OPS];
};

extern struct runtime runtime;

/* 0: not started; 1: active; -1: inert (TRMS_OFF, secure execution or a
 * failure at start). */
extern atomic_int runtime_state;

uint64_t runtime_realtime_ns(void);

/* Set up the fork handlers (process_hooks.c) and the handlers that write
 * the profile on SIGTERM and SIGINT (signal_hooks.c). */
void process_hooks_start(void);
void signal_hooks_start(void);

/* SIGTERM and SIGINT back to the program's dispositions: no code of the
 * library's runs on them any more (a thread entered a sandbox). */
void signal_hooks_stop(void);

/* Start the library (idempotent; the constructor calls it, and so does
 * the first API call if it comes earlier). */
void runtime_start(void);

/* How a profile write came about. */
enum write_reason {
	WRITE_FLUSH,  /* trms_flush */
	WRITE_EXEC,   /* before exec: like a flush (the exec may fail), but
			 trms run is told where it went */
	WRITE_EXIT,   /* normal exit: the last one */
	WRITE_ABRUPT, /* a fatal signal or _exit, perhaps inside a signal
			 handler: locks are only tried, the last one */
};

/* Write the profile.  A last write also closes the calling thread's open
 * regions, and later writes do nothing.  @return 0 or -errno. */
int runtime_write_profile(enum write_reason reason);

/* Around the last profile's write at a normal exit (the destructor):
 * from the program's exit on, terminating signals come too late (see
 * runtime_exiting). */
void runtime_exit_begin(void);
void runtime_exit_end(void);

/* The process is past the program's exit: the final profile is being
 * written at a normal exit, or was a moment ago.  A terminating signal
 * now comes too late to matter (without the library the process would
 * be gone): the library's SIGTERM and SIGINT handler lets it pass.
 * Async-signal-safe. */
bool runtime_exiting(void);

struct profile_writer;

/* Take @m (runtime.lock, runtime.flush_lock) for a profile write: in an
 * abrupt one (a signal handler may have interrupted the lock's owner,
 * perhaps in this very thread) only try for a while.  @return false if
 * it could not be had. */
bool runtime_take_lock(pthread_mutex_t *m, enum write_reason reason);

/* Everything of the profile after its header line, into @w (takes
 * runtime.lock).  @return 0, or -EBUSY if the lock could not be had. */
int profile_dump(struct profile_writer *w, enum write_reason reason);

/* Whether the process recorded anything at all: a tuple, a sample, data
 * through a hooked call (when in doubt, yes). */
bool profile_recorded_anything(enum write_reason reason);

/* What TRMS_VERBOSE=1 says of sampling at exit. */
void profile_log_sampling(void);

/* The sampled call trees and the sampler's totals, into @w; with names
 * of functions unless @with_names is false.  Called with runtime.lock
 * held. */
void sample_dump(struct profile_writer *w, bool with_names);

/* True if the calling process is the one the library's state belongs to
 * (false in a child made by vfork, or by a clone without fork handlers). */
static inline bool runtime_own_process(void)
{
	return getpid() == runtime.pid;
}

extern __thread struct trms_thread *thread_current
	__attribute__((tls_model("initial-exec")));

/* thread_self when the thread has no state yet. */
struct trms_thread *thread_attach(void);

/* In a child process after fork: keep only the calling thread, with an
 * empty profile. */
void thread_after_fork_child(void);

/* The next thread number, in creation order. */
uint32_t thread_reserve_ordinal(void);

/* Give a thread made by the pthread_create hook its state, before it runs
 * the program's code.  Failure leaves the thread unprofiled. */
void thread_attach_created(const struct thread_origin *origin);

/* The calling thread's state, created on first use; NULL if it cannot be
 * created or the thread is past its exit. */
static inline struct trms_thread *thread_self(void)
{
	struct trms_thread *t = thread_current;

	return __builtin_expect(t != NULL, 1) ? t : thread_attach();
}

/* True once the calling thread has gone through its exit. */
bool thread_is_gone(void);

/* The calling thread enters a seccomp sandbox: the library ends its
 * profiling as if it exited, and makes no system call in it again. */
void thread_enter_sandbox(void);
bool thread_is_sandboxed(void);

/* No thread but the caller is alive (as far as the library knows). */
bool thread_alone(void);

/* Create the pthread key whose destructor ends a thread's profiling. */
int thread_key_create(void);

/* Measure the cost floor and seed the estimates (see cost.h) on the
 * calling thread @t (once per process, at its first region begun with
 * costs in nanoseconds, see api.c). */
void api_calibrate(struct trms_thread *t);

/* In a child process after fork: a calibration another thread had under
 * way is to be made again. */
void api_after_fork_child(void);

/* Give @t the calibrated floor and estimates. */
void thread_cost_defaults(struct trms_thread *t);

/* thread_record when an observer is set (tests, calibration). */
void thread_record_observed(struct trms_thread *t, const struct frame *f,
			    uint64_t cost);

/* A new (trms, rms) could not be stored. */
void thread_record_failed(void);

/* If set, called with every activation the profile records (tests use it
 * to check each activation; not exported). */
extern void (*runtime_observer)(struct trms_thread *t,
				const struct activation *a);

/* The tag a new activation gets: the current generation, or 0 if
 * profiling is paused. */
static inline uint32_t runtime_tag(void)
{
	return atomic_load_explicit(&runtime.tag, memory_order_relaxed);
}

/* The thread's cost clock: access events, or clock ticks with the
 * library's own time taken out (see cost.h). */
static inline uint64_t thread_cost_now(struct trms_thread *t)
{
	if (config.cost == COST_EVENTS)
		return t->engine.events;
	return clock_ticks() - t->cost.excluded;
}

/* Record the activation of the popped frame @f, of cost @cost, unless
 * profiling was paused during it. */
static inline void thread_record(struct trms_thread *t, const struct frame *f,
				 uint64_t cost)
{
	if (__builtin_expect(runtime_observer != NULL, 0))
		return thread_record_observed(t, f, cost);
	if (!f->tag || f->tag != runtime_tag())
		return;
	if (__builtin_expect(profile_record(&t->profile, f->region,
					    (uint64_t)f->trms,
					    (uint64_t)f->rms, cost,
					    (uint64_t)f->induced_thread,
					    (uint64_t)f->induced_external) != 0,
			     0))
		thread_record_failed();
}

/* Around a call in which the calling thread may wait: it counts as
 * blocked meanwhile (see blocking_hooks.c). */
static inline struct sampler_thread *thread_block_begin(void)
{
	struct trms_thread *t = thread_current;

	/* A busy thread is in the library (the sample handler's unwinder,
	 * say): it is not the program waiting. */
	if (!t || t->busy || !sampler_active())
		return NULL;
	sampler_blocked(&t->sampler, true);
	return &t->sampler;
}

static inline void thread_block_end(struct sampler_thread *s)
{
	if (s)
		sampler_blocked(s, false);
}

/* Clock time the thread has spent on slow paths so far: registering
 * names, creating shadow memory, growing its stack or tuple table.  Such
 * work is timed where it happens and excluded exactly. */
static inline uint64_t thread_slow_ticks(const struct trms_thread *t)
{
	return t->lookup_slow_ticks + t->engine.slow_ticks +
	       t->profile.slow_ticks;
}

/* Close all of the calling thread's open activations, recording them as
 * ended now. */
void thread_close_all(struct trms_thread *t);

#endif
