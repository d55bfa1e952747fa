/*
 * sampler.h - sampling every thread's call stack (csprof; HPCToolkit's
 * work, idleness and overhead), into each thread's calling context tree.
 *
 * Each thread has its own timer: a POSIX timer on the thread's CPU clock
 * up to the kernel's tick rate (the tick times it at almost no cost), a
 * perf_event task clock above, whose high-resolution timer keeps up with
 * any rate (and raises SIGTRAP itself where it can: the cheapest
 * delivery); with the wall clock, a timer on the monotonic clock, which
 * also fires while the thread is blocked.  The signal is a real-time
 * signal the program does not use (signals.h moves it if the program
 * takes it), so the program's own SIGPROF and ITIMER_PROF keep working.
 *
 * The handler unwinds from the interrupted context (unwind.h: no system
 * call, no descriptor), using only preallocated or freshly mmap'ed memory,
 * and inserts the path into the thread's tree.  A sample is dropped (and
 * counted) when the thread was inside the library, or inside the loader
 * (whose lock unwinding takes), or when the stack cannot be unwound.
 *
 * The sampler is a leaf: it knows nothing of the rest of the library but
 * what it is handed — for each thread a context and a flag that says the
 * thread is running the library's own code, and one callback for the
 * regions a thread has open.
 */
#ifndef TRMS_SAMPLER_H
#define TRMS_SAMPLER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "sampler/cct.h"
#include "sampler/unwind.h"

enum sample_drop {
	DROP_IN_LIBRARY, /* the thread was running the library's code */
	DROP_IN_LOADER,  /* the thread was inside dlopen, dl_iterate_phdr */
	DROP_UNWIND,     /* libunwind could not start */
	DROP_NO_MEMORY,  /* no memory for the tree */
	SAMPLE_DROPS
};

#define SAMPLER_CONTEXT_MAX 128

/* A thread's sampling state, kept by the caller (one per thread). */
struct sampler_thread {
	pid_t tid;
	void *owner;       /* the caller's context, for open_regions */
	const bool *busy;  /* set while the thread runs the library's code */
	struct unwind_stack stack; /* where the thread's stack lies */
	int perf_fd; /* -1: none */
	uint64_t perf_id; /* the event's id, to know it is still ours */
	bool has_timer;
	timer_t timer;
	bool blocked; /* inside a wrapped blocking call (atomic stores) */
	/* Inside a wrapped call passed on to the C library that holds none
	 * of its locks (atomic stores): see unwind_prepare_interrupting. */
	bool passing;
	/* Wrapped blocking calls begun (the thread's own stores), and what
	 * the sample handler last judged of them (sampler_judge_waits). */
	uint32_t waits;
	uint32_t waits_judged;
	uint64_t periods_unjudged;
	bool leave_perf; /* the handler asks the thread to leave its task
			    clock at its next blocking call (atomic) */
	bool signalled;  /* the sampling signal reached the thread (atomic) */
	uint64_t samples; /* periods sampled, overrun included */
	uint64_t overrun; /* periods counted in the sample that followed */
	uint64_t dropped[SAMPLE_DROPS];
	uint64_t handler_ticks; /* time spent in the handler */
	uint64_t handed_ticks;  /* of it, what exclude_ticks took */
	uint64_t cpu_ns;        /* CPU time used, once the thread has ended */
	/* The creation context, then a thread-start step: the start of
	 * every path of this thread. */
	unsigned context_len;
	struct cct_step context[SAMPLER_CONTEXT_MAX];
	/* Last: ten kilobytes that a thread never sampled does not touch
	 * (a thread's start then touches one page of its state, not
	 * three). */
	struct cct cct;
};

/* A region open in a thread, and the stack pointer of the frame that
 * opened it (its place in the thread's call path). */
struct sampler_region {
	uint32_t region;
	uintptr_t cfa;
};

struct sampler_config {
	unsigned hz;        /* 0: no sampling */
	bool wall;          /* per second of elapsed time, not of CPU */
	bool trap;          /* above the tick rate, samples on SIGTRAP */
	/* The timer of CPU-clock samples (TRMS_SAMPLE_TIMER): by default
	 * the CPU-time timer up to the tick rate and the perf_event task
	 * clock above it; @tick_timer: the CPU-time timer at any rate;
	 * @perf_timer: the task clock at any rate. */
	bool tick_timer, perf_timer;
	int toggle_signal;  /* turns sampling off and on; 0: none */
	/* Take the table of loaded objects now, not at the first sample: a
	 * program that opens regions may name them after its functions
	 * (built by trms cc) and write its profile where the table cannot
	 * be taken (at _exit, in a fatal signal's handler). */
	bool objects_now;
	/* The regions open in the thread whose owner is @owner, outermost
	 * first, at most @max.  Called from the sample handler, in that
	 * thread (or in the thread itself for sampler_capture_context):
	 * async-signal-safe. */
	unsigned (*open_regions)(void *owner, struct sampler_region *out,
				 unsigned max);
	/* A sample of the thread whose owner is @owner, interrupting the
	 * program's code (not the library's), took @ticks of the handler's
	 * time: keep it out of the owner's costs.  Called from the sample
	 * handler, in that thread: async-signal-safe.  @return whether the
	 * owner took it (it then counts it as its own library time). */
	bool (*exclude_ticks)(void *owner, uint64_t ticks);
};

/* Set up (signal, timers' kind; the table of loaded objects and the
 * unwinder at the first sample, or before a second thread starts); arms
 * no thread. */
void sampler_start(const struct sampler_config *config);

/* Sampling was asked for and set up. */
bool sampler_active(void);

/* Give the calling thread its tree and arm its timer.  @owner: its
 * context for open_regions; @busy: its "in the library" flag; @created:
 * by the pthread_create hook, and starting now (its stack is then
 * known); @context: its creation context (NULL: none known). */
void sampler_thread_start(struct sampler_thread *s, void *owner,
			  const bool *busy, bool created,
			  const struct cct_step *context, unsigned context_len);

/* Disarm a thread's timer (at its exit, before its state is released). */
void sampler_thread_stop(struct sampler_thread *s);

/* The call path of the calling thread @s at this point (its creation
 * context, then its frames with its open regions among them), for the
 * creation context of a thread it creates; call it before the thread is
 * created (it may set libunwind up, which a sample can do only while the
 * process has one thread).  @return the number of steps. */
unsigned sampler_capture_context(struct sampler_thread *s,
				 struct cct_step *steps, unsigned max);

/* In a child after fork: the timers copied from the parent measure the
 * parent's threads; keep only @self (NULL: none) and rearm it. */
void sampler_after_fork_child(struct sampler_thread *self);

/* Around exec: stop sampling the calling thread and take any sample
 * signal still pending (the new image would die of it); and start again
 * if exec failed. */
void sampler_before_exec(void);
void sampler_after_failed_exec(void);

/* The calling thread enters a seccomp sandbox: disarm its timer and take
 * its pending samples, so that no sample reaches it any more. */
void sampler_stop_self(struct sampler_thread *s);

/* Every thread enters one: stop every timer, let every other thread take
 * what was on its way, and discard what is still pending; sampling is
 * over for the process. */
void sampler_shut_down(void);

/* Turn sampling on or off for every thread.  Async-signal-safe. */
void sampler_set_enabled(bool on);

/* The real-time signal samples come on (0 if none); SIGTRAP may carry
 * them too. */
int sampler_signal(void);

/* While set on the calling thread, a sample is charged to the program's
 * frame that called into the library: the library's frames, and what
 * they called, are cut off (for samples that were due before, while the
 * library kept signals blocked around a call of the program's). */
void sampler_charge_caller(bool on);

/* Marking the calling thread blocked around a blocking call, for the
 * idleness of the threads that work meanwhile. */
static inline void sampler_blocked(struct sampler_thread *s, bool blocked)
{
	__atomic_store_n(&s->blocked, blocked, __ATOMIC_RELAXED);
}

/* Marking the calling thread inside a wrapped call that holds no lock of
 * the C library's: a sample there may open libunwind. */
static inline void sampler_passing(struct sampler_thread *s, bool passing)
{
	__atomic_store_n(&s->passing, passing, __ATOMIC_RELAXED);
}

/* Leave the calling thread's task clock for its CPU-time timer (the
 * sample handler asked for it: the thread waits too often). */
void sampler_leave_perf(struct sampler_thread *s);

/* The calling thread begins a blocking call: counted, and marked
 * blocked. */
static inline void sampler_wait_begin(struct sampler_thread *s)
{
	__atomic_store_n(&s->waits, s->waits + 1, __ATOMIC_RELAXED);
	if (__builtin_expect(__atomic_load_n(&s->leave_perf, __ATOMIC_RELAXED),
			     0))
		sampler_leave_perf(s);
	sampler_blocked(s, true);
}

/* Open libunwind and take the table of loaded objects now, if sampling is
 * on and they are not yet: before the program changes its root directory
 * (chroot), after which they may not be found.  Normal context, the
 * calling thread busy. */
void sampler_open_unwinder(void);

/* Walk the samples that a process of one thread took while libunwind
 * could not be opened (inside the C library, say), opening it now: before
 * its profile is written.  Normal context, with the sampling signal
 * blocked or the calling thread busy. */
void sampler_walk_kept(void);

/* Totals for the profile and the exit message: sampler_totals_begin,
 * then sampler_totals_add for every thread, live or ended. */
struct sampler_totals {
	bool enabled;
	const char *clock;  /* "cpu" or "wall" */
	const char *source; /* "perf_event" or "posix_timer" */
	bool kernel;        /* time in the kernel is sampled too */
	unsigned hz;
	int signal;
	uint64_t samples;
	uint64_t overrun;
	uint64_t dropped[SAMPLE_DROPS];
	uint64_t unattached; /* signals to threads with no state */
	uint64_t handler_ticks;
	uint64_t cpu_ns; /* CPU time of the sampled threads */
	/* Threads that left their task clock for the CPU-time timer. */
	unsigned threads_left_perf;
};

void sampler_totals_begin(struct sampler_totals *totals);
void sampler_totals_add(struct sampler_totals *totals,
			const struct sampler_thread *s);

const char *sampler_drop_name(enum sample_drop drop);

/* CPU time the thread has used so far (ns). */
uint64_t sampler_thread_cpu_ns(const struct sampler_thread *s);

#endif
