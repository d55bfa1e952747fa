/*
 * sampler.h - sampling every thread's call stack (csprof; HPCToolkit's
 * work, idleness and overhead), into each thread's calling context tree.
 *
 * Each thread has its own timer: a perf_event task-clock counter that
 * signals every 1/TRMS_SAMPLE_HZ seconds of the thread's CPU time (the
 * rate asked for is the rate delivered), or, where the kernel refuses
 * perf events, a POSIX timer on the thread's CPU clock (which the kernel
 * rounds to its tick); with TRMS_SAMPLE_CLOCK=wall, a timer on the
 * monotonic clock, which also fires while the thread is blocked.  The
 * signal is a real-time signal the program does not use, so the program's
 * own SIGPROF and ITIMER_PROF keep working; if the program later installs
 * a handler for it, the library moves to another free one.
 *
 * The handler unwinds from the interrupted context (unwind.h: no system
 * call, no descriptor), using only preallocated or freshly mmap'ed memory,
 * and inserts the path into the thread's tree.  A sample is dropped (and counted) when the thread
 * was inside the library, or inside the loader (whose lock unwinding
 * takes), or when the stack cannot be unwound.
 */
#ifndef TRMS_SAMPLER_H
#define TRMS_SAMPLER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "cct.h"
#include "unwind.h"

enum sample_drop {
	DROP_IN_LIBRARY, /* the thread was running the library's code */
	DROP_IN_LOADER,  /* the thread was inside dlopen, dl_iterate_phdr */
	DROP_UNWIND,     /* libunwind could not start */
	DROP_NO_MEMORY,  /* no memory for the tree */
	SAMPLE_DROPS
};

#define SAMPLER_CONTEXT_MAX 128

/* A thread's sampling state, in its struct trms_thread. */
struct sampler_thread {
	pid_t tid;
	struct unwind_stack stack; /* where the thread's stack lies */
	int perf_fd; /* -1: none */
	uint64_t perf_id; /* the event's id, to know it is still ours */
	bool has_timer;
	timer_t timer;
	bool blocked; /* inside a wrapped blocking call (atomic stores) */
	bool in_handler; /* taking a sample, every signal blocked */
	bool signalled;  /* the sampling signal reached the thread (atomic) */
	uint64_t samples; /* periods sampled, overrun included */
	uint64_t overrun; /* periods counted in the sample that followed */
	uint64_t dropped[SAMPLE_DROPS];
	uint64_t handler_ticks; /* time spent in the handler */
	uint64_t cpu_ns;        /* CPU time used, once the thread has ended */
	struct cct cct;
	/* The creation context, then a thread-start step: the start of
	 * every path of this thread. */
	unsigned context_len;
	struct cct_step context[SAMPLER_CONTEXT_MAX];
};

struct trms_thread;

/* Set up at library start (reads config.sample_*); arms the calling
 * thread. */
void sampler_start(void);

/* Give a new thread its tree and arm its timer; called by the thread
 * itself, after its state is attached.  @created: by the pthread_create
 * hook, and starting now.  @context: its creation context (NULL: none
 * known). */
void sampler_thread_start(struct trms_thread *t, bool created,
			  const struct cct_step *context, unsigned context_len);

/* Disarm a thread's timer (at its exit, before its state is released). */
void sampler_thread_stop(struct trms_thread *t);

/* The call path of the calling thread at this point (its own creation
 * context, then its frames with its open regions among them), for the
 * creation context of a thread it creates.  @return the number of steps. */
unsigned sampler_capture_context(struct trms_thread *t, struct cct_step *steps,
				 unsigned max);

/* In a child after fork: the timers copied from the parent measure the
 * parent's threads; rearm the child's own. */
void sampler_after_fork_child(struct trms_thread *self);

/* Around exec: stop sampling the calling thread and take any sample
 * signal still pending (the new image would die of it); and start again
 * if exec failed. */
void sampler_before_exec(void);
void sampler_after_failed_exec(void);

/* The calling thread enters a seccomp sandbox: disarm its timer and take
 * its pending samples, so that no sample reaches it any more. */
void sampler_stop_self(struct trms_thread *t);

/* Every thread enters one: stop every timer and discard every pending
 * sample; sampling is over for the process.  SIGTRAP, if samples came on
 * it, goes back to the program's disposition. */
void sampler_shut_down(void);

/* Turn sampling on or off for every thread.  Async-signal-safe. */
void sampler_set_enabled(bool on);

/* The sampling signal (0 if sampling is off); the sigaction hook asks. */
int sampler_signal(void);

/* Samples come as SIGTRAP, raised by the perf_event timers themselves
 * (see sampler_start): the library's handler stays SIGTRAP's, and hands
 * every SIGTRAP that is not a sample to the program (signal_forward). */
bool sampler_traps(void);

/* Deliver @sig, which the library's handler caught but the program is
 * owed, as the disposition the program set would have: its handler, or
 * nothing (ignored), or the default action.  Async-signal-safe. */
void signal_forward(int sig, siginfo_t *info, void *uctx);

/* Put back the disposition the program set for @sig (or the default)
 * where the library's handler stood; sampling, or the profile on SIGTERM
 * and SIGINT, no longer needs it.  Not async-signal-safe. */
void signal_give_back(int sig);

/* While set on the calling thread, a sample is charged to the program's
 * frame that called into the library: the library's frames, and what
 * they called, are cut off (for samples that were due before, while the
 * library kept signals blocked around a call of the program's). */
void sampler_charge_caller(bool on);

/* Sampling was asked for (TRMS_SAMPLE_HZ > 0) and set up. */
bool sampler_active(void);

/* How many times the sampling signal, and a handler of the program's,
 * have run on the calling thread: a blocking call that failed with EINTR
 * while only the first moved was interrupted by the library alone. */
unsigned sampler_deliveries(void);
unsigned signal_program_deliveries(void);

/* Signal counts before a call, to tell afterwards who interrupted it. */
struct interruptions {
	unsigned ours, program;
};

static inline void interruptions_note(struct interruptions *n)
{
	n->ours = sampler_deliveries();
	n->program = signal_program_deliveries();
}

/* Since @n was noted, the sampling signal came, and no signal the program
 * handles. */
static inline bool interrupted_by_us_only(const struct interruptions *n)
{
	return sampler_deliveries() != n->ours &&
	       signal_program_deliveries() == n->program;
}

/* The program wants @sig for itself: if the library samples with it, move
 * to another free signal first.  @return true if it moved. */
bool sampler_yield_signal(int sig);

/* Marking the calling thread blocked around a blocking call, for the
 * idleness of the threads that work meanwhile. */
static inline void sampler_blocked(struct sampler_thread *s, bool blocked)
{
	__atomic_store_n(&s->blocked, blocked, __ATOMIC_RELAXED);
}

/* Totals for the profile and the exit message. */
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
	uint64_t handler_ns;
	uint64_t cpu_ns; /* CPU time of the sampled threads */
};

void sampler_totals(struct sampler_totals *totals);

const char *sampler_drop_name(enum sample_drop drop);

/* CPU time the thread has used so far (ns). */
uint64_t sampler_thread_cpu_ns(const struct sampler_thread *s);

#endif
