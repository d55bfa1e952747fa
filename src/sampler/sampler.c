/*
 * sampler.c - sampling every thread's call stack (see sampler.h): setting
 * up, the threads sampled, turning sampling on and off, and what fork,
 * exec and sandboxes ask of it.
 */
#define _GNU_SOURCE
#include "sampler/sampler_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/single_threaded.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sampler/dynsym.h"
#include "base/log.h"
#include "sampler/modules.h"
#include "base/signals.h"
#include "base/sys.h"
#include "base/vm.h"

#define TICK_HZ_MIN 100 /* every Linux kernel ticks at least this often */
/* Threads whose blocked flag a sample looks at, for idleness. */
#define SLOTS 16384

struct sampler sampler;

__thread struct sampler_thread *sampler_self
	__attribute__((tls_model("initial-exec")));

/* The live sampled threads. */
static _Atomic(struct sampler_thread *) slots[SLOTS] VM_SET_APART;
static atomic_uint slots_used; /* high-water mark */

const char *sampler_drop_name(enum sample_drop drop)
{
	static const char *const names[SAMPLE_DROPS] = {
		[DROP_IN_LIBRARY] = "in_library",
		[DROP_IN_LOADER] = "in_loader",
		[DROP_UNWIND] = "unwind",
		[DROP_NO_MEMORY] = "no_memory",
	};
	return names[drop];
}

bool sampler_active(void)
{
	return sampler.configured;
}

int sampler_signal(void)
{
	return atomic_load_explicit(&sampler.signal, memory_order_relaxed);
}

static bool traps(void)
{
	return atomic_load_explicit(&sampler.trap, memory_order_relaxed);
}

/* ---- the threads sampled ---- */

void sampler_for_each(void (*fn)(struct sampler_thread *s, void *ctx),
		      void *ctx)
{
	unsigned used = atomic_load(&slots_used);

	for (unsigned i = 0; i < used; i++) {
		struct sampler_thread *s = atomic_load(&slots[i]);
		if (s)
			fn(s, ctx);
	}
}

void sampler_count_threads(double *idle, double *working)
{
	unsigned used = atomic_load_explicit(&slots_used, memory_order_acquire);
	unsigned live = 0, blocked = 0;

	for (unsigned i = 0; i < used; i++) {
		struct sampler_thread *s =
			atomic_load_explicit(&slots[i], memory_order_acquire);
		if (!s)
			continue;
		live++;
		blocked += __atomic_load_n(&s->blocked, __ATOMIC_RELAXED);
	}
	*idle = blocked;
	*working = live > blocked ? live - blocked : 1;
}

static void take_slot(struct sampler_thread *s)
{
	for (unsigned i = 0; i < SLOTS; i++) {
		struct sampler_thread *expected = NULL;
		if (atomic_compare_exchange_strong(&slots[i], &expected, s)) {
			unsigned used = atomic_load(&slots_used);
			while (used < i + 1 &&
			       !atomic_compare_exchange_weak(&slots_used, &used,
							     i + 1))
				;
			return;
		}
	}
}

static void leave_slot(struct sampler_thread *s)
{
	unsigned used = atomic_load(&slots_used);

	for (unsigned i = 0; i < used; i++) {
		struct sampler_thread *expected = s;
		if (atomic_compare_exchange_strong(&slots[i], &expected, NULL))
			return;
	}
}

void sampler_thread_start(struct sampler_thread *s, void *owner,
			  const bool *busy, bool created,
			  const struct cct_step *context, unsigned context_len)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);

	__atomic_store_n(&s->tid, tid, __ATOMIC_RELAXED);
	s->owner = owner;
	s->busy = busy;
	s->perf_fd = -1;
	if (context_len > SAMPLER_CONTEXT_MAX - 1)
		context_len = SAMPLER_CONTEXT_MAX - 1;
	if (context_len)
		memcpy(s->context, context, context_len * sizeof(*context));
	s->context[context_len] = (struct cct_step){ CCT_THREAD, 0 };
	s->context_len = context_len + 1;
	if (!sampler.configured)
		return;
	/* Where its stack lies, for the walks: known for the main thread
	 * and for the threads the program creates (they start here, where
	 * asking may allocate); a thread met on a first call of the
	 * library, perhaps in a signal handler, is sampled at its leaf. */
	if (tid == getpid() || created)
		unwind_stack_of_self(&s->stack, tid == getpid());
	sampler_scratch_init();
	sampler_self = s;
	take_slot(s);
	sampler_arm(s);
}

void sampler_thread_stop(struct sampler_thread *s)
{
	if (!sampler.configured)
		return;
	sampler_disarm(s);
	leave_slot(s);
	if (sampler_self == s)
		sampler_self = NULL;
	uint64_t cpu_ns = sampler_thread_cpu_ns(s);
	__atomic_store_n(&s->cpu_ns, cpu_ns ? cpu_ns : 1, __ATOMIC_RELAXED);
}

bool sampler_unwinder(void)
{
	static bool said;

	/* (Not at start: most processes never take a sample, and taking
	 * the table of objects maps and touches memory in page tables of
	 * its own, 0.2 ms of a /bin/true on a virtual machine whose page
	 * faults are slow.) */
	if (unwind_prepare() == 0) {
		modules_ready(false);
		sampler_walk_kept();
		return true;
	}
	if (!__atomic_exchange_n(&said, true, __ATOMIC_RELAXED))
		log_internal("libunwind (" TRMS_LIBUNWIND_SONAME ") cannot be "
			     "opened or set up: call stacks are not sampled");
	sampler.configured = false;
	return false;
}

void sampler_open_unwinder(void)
{
	if (sampler.configured)
		sampler_unwinder();
}

unsigned sampler_capture_context(struct sampler_thread *s,
				 struct cct_step *steps, unsigned max)
{
	/* The program is about to have a second thread: after that, only
	 * here can libunwind be set up. */
	if (!sampler.configured || !sampler_unwinder())
		return 0;
	return sampler_capture(s, steps, max);
}

/* ---- on and off ---- */

static void run_slot(struct sampler_thread *s, void *ctx)
{
	sampler_run(s, *(bool *)ctx);
}

void sampler_set_enabled(bool on)
{
	if (!sampler.configured || !sampler_signal())
		return;
	atomic_store(&sampler.on, on);
	sampler_for_each(run_slot, &on);
}

static void on_toggle(int sig, siginfo_t *info, void *uctx)
{
	(void)sig;
	(void)info;
	(void)uctx;
	sampler_set_enabled(!atomic_load(&sampler.on));
}

/* The program takes the sampling signal: move to another free one (the
 * timers are retargeted), or stop. */
static void signal_taken(int sig)
{
	int fresh = signals_free_realtime(sig);

	if (!fresh || signals_claim(fresh, sampler_on_sample, 0, signal_taken)) {
		log_internal("the program takes signal %d, which sampling "
			     "used, and no other is free: sampling stopped",
			     sig);
		sampler_set_enabled(false);
		atomic_store(&sampler.signal, 0);
		return;
	}
	atomic_store(&sampler.signal, fresh);
	sampler_for_each(sampler_retarget, &fresh);
	log_debug("the program takes signal %d: sampling moved to %d", sig,
		  fresh);
}

/* ---- exec, fork, sandboxes ---- */

/* Take the sample signals still pending for the calling thread, its
 * timer stopped: a SIGTRAP of the program's stays pending. */
static void drain_self(int sig)
{
	sigset_t ours, saved;
	const struct timespec now = { 0, 0 };

	sigemptyset(&ours);
	sigaddset(&ours, sig);
	if (traps())
		sigaddset(&ours, SIGTRAP);
	pthread_sigmask(SIG_BLOCK, &ours, &saved);
	siginfo_t info;
	bool program_trap = false;
	int got;
	while ((got = sigtimedwait(&ours, &info, &now)) > 0)
		if (got == SIGTRAP && !sampler_our_trap(&info))
			program_trap = true;
	if (program_trap)
		syscall(SYS_tgkill, getpid(), gettid(), SIGTRAP);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

void sampler_before_exec(void)
{
	struct sampler_thread *s = sampler_self;
	int sig = sampler_signal();

	if (!s || !sig)
		return;
	/* Pending signals survive exec, handlers do not: a sample signal
	 * still pending would kill the new image before it could install
	 * a handler.  Stop this thread's timer, then take what is pending.
	 * (Other threads' signals die with them.) */
	sampler_run(s, false);
	drain_self(sig);
}

void sampler_after_failed_exec(void)
{
	struct sampler_thread *s = sampler_self;

	if (s && sampler_signal())
		sampler_run(s, atomic_load(&sampler.on));
}

void sampler_stop_self(struct sampler_thread *s)
{
	int sig = sampler_signal();

	sampler_thread_stop(s);
	if (sig)
		drain_self(sig);
}

static void ask_signal(struct sampler_thread *s, void *ctx)
{
	int sig = *(int *)ctx;
	pid_t tid = __atomic_load_n(&s->tid, __ATOMIC_RELAXED);

	if (s == sampler_self || !tid)
		return;
	__atomic_store_n(&s->signalled, false, __ATOMIC_RELAXED);
	syscall(SYS_tgkill, getpid(), tid, sig);
}

static void count_unsignalled(struct sampler_thread *s, void *ctx)
{
	if (s != sampler_self &&
	    !__atomic_load_n(&s->signalled, __ATOMIC_ACQUIRE))
		++*(unsigned *)ctx;
}

/*
 * With every timer stopped, a sample may still be on its way to another
 * thread: a perf_event timer's SIGTRAP is queued when that thread next
 * returns to user mode, which may be after a preemption or a blocking
 * call.  Send each other thread the sampling signal, and wait (a while,
 * not for ever: a thread may block every signal) until each has taken it:
 * by then it has taken any sample queued before.
 */
static void flush_other_threads(int sig)
{
	const struct timespec pause = { 0, 1000000 };
	unsigned waiting;

	sampler_for_each(ask_signal, &sig);
	for (int ms = 0; ms < 200; ms++) {
		waiting = 0;
		sampler_for_each(count_unsignalled, &waiting);
		if (!waiting)
			return;
		nanosleep(&pause, NULL);
	}
}

void sampler_shut_down(void)
{
	int sig = sampler_signal();

	if (!sampler.configured || !sig)
		return;
	sampler_set_enabled(false);
	flush_other_threads(sig);
	atomic_store(&sampler.signal, 0);
	signals_release(sig, true);
	if (atomic_exchange(&sampler.trap, false))
		signals_release(SIGTRAP, true);
}

static void forget_slot(struct sampler_thread *s, void *ctx)
{
	/* The descriptors came with the copied memory and file table:
	 * they count the parent's threads. */
	sampler_forget_timers(s);
	if (s != ctx)
		leave_slot(s);
}

void sampler_after_fork_child(struct sampler_thread *self)
{
	if (!sampler.configured)
		return;
	sampler_forget_kept();
	sampler_for_each(forget_slot, self);
	sampler_self = self;
	if (!self)
		return;
	__atomic_store_n(&self->tid, (pid_t)syscall(SYS_gettid),
			 __ATOMIC_RELAXED);
	self->samples = 0;
	self->overrun = 0;
	memset(self->dropped, 0, sizeof(self->dropped));
	self->handler_ticks = 0;
	self->handed_ticks = 0;
	/* The child's one thread starts on the kind of timer the
	 * settings choose, and is judged afresh. */
	atomic_store(&sampler.threads_left_perf, 0);
	self->leave_perf = false;
	self->waits_judged = self->waits;
	self->periods_unjudged = 0;
	cct_fini(&self->cct);
	sampler_arm(self);
}

/* ---- start ---- */

static void note_sync_routines(void)
{
	static const char *const names[] = {
		"pthread_mutex_lock", "pthread_mutex_timedlock",
		"pthread_cond_wait", "pthread_cond_timedwait",
		"pthread_rwlock_rdlock", "pthread_rwlock_wrlock",
		"pthread_spin_lock", "pthread_barrier_wait", "pthread_join",
		"sem_wait", "sem_timedwait",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) &&
			   sampler.n_sync < 16;
	     i++) {
		uintptr_t start = (uintptr_t)dlsym(RTLD_NEXT, names[i]), end;
		if (!start || !dynsym_function_end(start, names[i], &end))
			continue;
		sampler.sync[sampler.n_sync].start = start;
		sampler.sync[sampler.n_sync].end = end;
		sampler.n_sync++;
	}
}

/* Is a debugger (or strace, ...) attached?  It would take our SIGTRAPs
 * for its own. */
static bool traced(void)
{
	char status[4096];
	const char *tracer;

	if (!sys_read_head("/proc/self/status", status, sizeof(status)))
		return true; /* cannot tell: do not risk it */
	tracer = strstr(status, "\nTracerPid:");
	return !tracer || atol(tracer + 11) != 0;
}

/* Settle how perf events are opened here: with SIGTRAP if asked for and
 * to be had, counting kernel time if allowed.  @return false if none
 * opens. */
static bool perf_works(bool trap_wanted)
{
	pid_t self = (pid_t)syscall(SYS_gettid);
	/* Not if someone else has a use for SIGTRAP: a tracer, or the
	 * program (which may have set its handler before the library
	 * started: then signals_share fails later). */
	bool with_trap = trap_wanted && !traced();

	for (int trap = with_trap; trap >= 0; trap--) {
		atomic_store(&sampler.trap, trap);
		for (int user_only = 0; user_only <= 1; user_only++) {
			sampler.user_only = user_only;
			int fd = sampler_open_perf(self, sampler_signal());
			if (fd >= 0) {
				close(fd);
				return true;
			}
		}
	}
	return false;
}

/* The fastest rate a tick-driven CPU-time timer keeps up with: the
 * kernel's tick rate, whose period is the resolution of the coarse clocks
 * (a kernel built with HZ=250 says 4 ms); at least TICK_HZ_MIN. */
static unsigned tick_limited_hz(void)
{
	struct timespec res;

	if (clock_getres(CLOCK_MONOTONIC_COARSE, &res) != 0 || res.tv_sec ||
	    res.tv_nsec <= 0)
		return TICK_HZ_MIN;
	unsigned tick = (unsigned)(1000000000 / res.tv_nsec);
	return tick > TICK_HZ_MIN ? tick : TICK_HZ_MIN;
}

/* Take the signals samples come on.  @return false if none can be had. */
static bool take_signals(const struct sampler_config *config)
{
	int sig = signals_free_realtime(config->toggle_signal);

	if (!sig || signals_claim(sig, sampler_on_sample, 0, signal_taken)) {
		log_internal("no free real-time signal: call stacks are not "
			     "sampled");
		return false;
	}
	atomic_store(&sampler.signal, sig);
	/* A thread's CPU-time timer is checked at each tick of the kernel,
	 * at almost no cost: up to the tick rate it keeps up, each sample a
	 * little late, and where a tick finds two periods used up (a thread
	 * that shares its CPU is charged time in uneven slices) the signal's
	 * overrun says so and the sample counts for both.  Faster, only a
	 * perf_event task clock, whose high-resolution timer costs more per
	 * sample, keeps up; but it is switched at every context switch, which
	 * a thread that switches at every request pays for (a trap to the
	 * hypervisor each, in a virtual machine): TRMS_SAMPLE_TIMER=tick keeps
	 * the CPU-time timer at any rate, each signal counting the periods it
	 * covers. */
	bool perf_wanted = config->perf_timer ||
			   (!config->tick_timer &&
			    sampler.hz > tick_limited_hz());
	sampler.use_perf = !sampler.wall && perf_wanted &&
			   perf_works(config->trap);
	sampler.perf_adaptive = sampler.use_perf && !config->perf_timer;
	if (sampler.use_perf && traps() &&
	    signals_share(SIGTRAP, sampler_on_sample, sampler_our_trap))
		atomic_store(&sampler.trap, false);
	if (config->toggle_signal)
		signals_claim(config->toggle_signal, on_toggle, 0, NULL);
	return true;
}

void sampler_start(const struct sampler_config *config)
{
	if (config->objects_now)
		modules_ready(false);
	sampler.hz = config->hz;
	sampler.wall = config->wall;
	sampler.open_regions = config->open_regions;
	sampler.exclude_ticks = config->exclude_ticks;
	sampler.configured = sampler.hz > 0;
	if (!sampler.configured)
		return;
	sampler.period_ns = 1000000000u / sampler.hz;
	/* libunwind is opened at the first walk (unwind_prepare): with
	 * threads about already, or an allocator of the program's that a
	 * sample could interrupt, a sample could not do it. */
	if ((!__libc_single_threaded || !unwind_may_wait()) &&
	    !sampler_unwinder())
		return;
	note_sync_routines();
	if (!take_signals(config)) {
		sampler.configured = false;
		return;
	}
	atomic_store(&sampler.on, true);
	log_info("sampling call stacks at %u Hz of %s time (%s%s, signal "
		 "%d)",
		 sampler.hz, sampler.wall ? "wall" : "CPU",
		 !sampler.use_perf   ? "POSIX timer"
		 : sampler.user_only ? "perf_event, user time only"
				     : "perf_event",
		 sampler.use_perf && traps() ? ", as SIGTRAP" : "",
		 sampler.use_perf && traps() ? SIGTRAP : sampler_signal());
}

/* ---- totals ---- */

void sampler_totals_begin(struct sampler_totals *out)
{
	memset(out, 0, sizeof(*out));
	out->enabled = sampler.configured;
	out->clock = sampler.wall ? "wall" : "cpu";
	out->source = sampler.use_perf ? "perf_event" : "posix_timer";
	out->kernel = !(sampler.use_perf && sampler.user_only);
	out->hz = sampler.hz;
	out->signal = sampler.use_perf && traps() ? SIGTRAP : sampler_signal();
	out->unattached = atomic_load(&sampler.unattached);
	/* Kept to be walked, and not walked: as good as dropped. */
	out->dropped[DROP_UNWIND] = sampler_kept_periods();
	out->threads_left_perf = atomic_load(&sampler.threads_left_perf);
}

void sampler_totals_add(struct sampler_totals *out,
			const struct sampler_thread *s)
{
	out->samples += cct_load(&s->samples);
	out->overrun += cct_load(&s->overrun);
	for (int i = 0; i < SAMPLE_DROPS; i++)
		out->dropped[i] += cct_load(&s->dropped[i]);
	out->handler_ticks += cct_load(&s->handler_ticks);
	out->cpu_ns += sampler_thread_cpu_ns(s);
}
