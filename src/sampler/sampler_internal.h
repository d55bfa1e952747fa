/*
 * sampler_internal.h - what the sampler's files share: its settings and
 * state, the threads it samples, and the parts each file provides to the
 * others (sampler.c: start and threads; sampler_timer.c: timers;
 * sampler_handler.c: taking a sample).
 */
#ifndef TRMS_SAMPLER_INTERNAL_H
#define TRMS_SAMPLER_INTERNAL_H

#include <stdatomic.h>

#include "sampler/sampler.h"

#define MAX_FRAMES 256

/* What our sigtrap events put in si_perf_data, to know their SIGTRAPs
 * from anyone else's. */
#define TRAP_COOKIE 0x74726d73736d706cull /* "trmssmpl" */

/* A code address range: a synchronisation routine of the C library. */
struct code_range {
	uintptr_t start, end;
};

struct sampler {
	bool configured;   /* asked for and set up */
	atomic_bool on;
	atomic_int signal; /* 0 until chosen */
	bool wall;
	bool use_perf;     /* perf events work here */
	/* ... chosen by `auto`: a thread that waits often leaves its task
	 * clock for the CPU-time timer (sampler_timer.c). */
	bool perf_adaptive;
	atomic_uint threads_left_perf;
	/* ... and raise SIGTRAP themselves (sigtrap events): no signal to
	 * send from an interrupt, the cheapest delivery there is. */
	atomic_bool trap;
	/* ... but only for user mode (perf_event_paranoid forbids more):
	 * time in system calls is then not sampled. */
	bool user_only;
	unsigned hz;
	uint64_t period_ns;
	atomic_ulong unattached;
	struct code_range sync[16];
	unsigned n_sync;
	unsigned (*open_regions)(void *owner, struct sampler_region *out,
				 unsigned max);
	bool (*exclude_ticks)(void *owner, uint64_t ticks);
};

extern struct sampler sampler;

/* The calling thread's sampling state (NULL: not sampled). */
extern __thread struct sampler_thread *sampler_self
	__attribute__((tls_model("initial-exec")));

/* Each sampled thread, for idleness, switching and signalling them all. */
void sampler_for_each(void (*fn)(struct sampler_thread *s, void *ctx),
		      void *ctx);
/* Threads blocked and working right now (the sampled one works). */
void sampler_count_threads(double *idle, double *working);

/* sampler_handler.c: the periods of the samples kept until libunwind is
 * open (counted as dropped until walked); forgetting them (a forked
 * child: they are the parent's). */
uint64_t sampler_kept_periods(void);
void sampler_forget_kept(void);

/* sampler_timer.c */
bool sampler_our_trap(const siginfo_t *info);
int sampler_open_perf(pid_t tid, int sig);
void sampler_arm(struct sampler_thread *s);
void sampler_disarm(struct sampler_thread *s);
void sampler_run(struct sampler_thread *s, bool on);
/* In the sample handler of a thread on a task clock: after enough of its
 * CPU time, decide whether it waits often enough to leave it. */
void sampler_judge_waits(struct sampler_thread *s, uint64_t periods);
void sampler_retarget(struct sampler_thread *s, void *ctx);
/* Forget the thread's timers after fork (closing descriptors that are
 * still the event's: the child's copies of the parent's). */
void sampler_forget_timers(struct sampler_thread *s);

/* sampler_handler.c */
void sampler_on_sample(int sig, siginfo_t *info, void *uctx);
/* A scratch area for the calling thread's walks (once per thread). */
void sampler_scratch_init(void);
/* Set libunwind up, in normal context, if it is not: @return false (and
 * sampling stops, said once) if it cannot be.  Takes the table of loaded
 * objects too (modules_ready). */
bool sampler_unwinder(void);

unsigned sampler_capture(struct sampler_thread *s, struct cct_step *steps,
			 unsigned max);

#endif
