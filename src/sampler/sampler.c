/*
 * sampler.c - sampling every thread's call stack (see sampler.h).
 */
#define _GNU_SOURCE
#include "sampler.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "dynsym.h"
#include "log.h"
#include "modules.h"
#include "real.h"
#include "thread.h"
#include "sys.h"
#include "unwind.h"
#include "vm.h"

#define MAX_FRAMES 256
#define TICK_HZ_MIN 100 /* every Linux kernel ticks at least this often */
/* Threads whose blocked flag a sample looks at, for idleness. */
#define SLOTS 16384
#define UNKNOWN_MODULE 0xffffffu

/* A code address range: a synchronisation routine of the C library. */
struct code_range {
	uintptr_t start, end;
};

static struct {
	bool configured;   /* TRMS_SAMPLE_HZ > 0 */
	atomic_bool on;
	atomic_int signal; /* 0 until chosen */
	bool wall;
	bool use_perf;     /* perf events work here */
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
	bool own_module_known;
	uint32_t own_module;
} sampler;

/* The live sampled threads, for counting the blocked ones. */
static _Atomic(struct trms_thread *) slots[SLOTS];
static atomic_uint slots_used; /* high-water mark */

/* Scratch space for the handler, one per thread: no stack spent on it. */
struct scratch {
	uintptr_t ip[MAX_FRAMES];
	uintptr_t sp[MAX_FRAMES];
	struct cct_step path[CCT_MAX_DEPTH];
};

static __thread struct scratch *scratch
	__attribute__((tls_model("initial-exec")));

/* Deliveries of the sampling signal on this thread. */
static __thread unsigned deliveries __attribute__((tls_model("initial-exec")));

unsigned sampler_deliveries(void)
{
	return deliveries;
}

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

bool sampler_traps(void)
{
	return atomic_load_explicit(&sampler.trap, memory_order_relaxed);
}

#ifndef TRAP_PERF
#define TRAP_PERF 6 /* the kernel's si_code (asm-generic/siginfo.h) */
#endif

/* What our sigtrap events put in si_perf_data, to know their SIGTRAPs
 * from anyone else's. */
#define TRAP_COOKIE 0x74726d73736d706cull /* "trmssmpl" */

/* Did this SIGTRAP come from one of our sampling events?  si_perf_data
 * (not in glibc's siginfo_t) follows si_addr in the kernel's layout. */
static bool our_trap(const siginfo_t *info)
{
	unsigned long data;

	if (!info || info->si_code != TRAP_PERF)
		return false;
	memcpy(&data, (const char *)&info->si_addr + sizeof(void *),
	       sizeof(data));
	return data == TRAP_COOKIE;
}

/* ---- building a path ---- */

static bool in_own_module(const struct modules_view *view, uintptr_t ip)
{
	uint32_t module;
	uintptr_t offset;

	return sampler.own_module_known &&
	       modules_find_in(view, ip, &module, &offset) &&
	       module == sampler.own_module;
}

/* See sampler_charge_caller. */
static __thread bool charge_caller __attribute__((tls_model("initial-exec")));

void sampler_charge_caller(bool on)
{
	charge_caller = on;
}

/* The frame of @ip[0..@n) that called the library's frames nearest the
 * leaf (0 if there are none): those, and what they called, cut off. */
static unsigned caller_of_library(const struct modules_view *view,
				  const uintptr_t *ip, unsigned n)
{
	unsigned i = 0;

	while (i < n && !in_own_module(view, ip[i]))
		i++;
	while (i < n && in_own_module(view, ip[i]))
		i++;
	return i < n ? i : 0;
}

static struct cct_step frame_step(const struct modules_view *view,
				  uintptr_t ip)
{
	uint32_t module;
	uintptr_t offset;

	if (!modules_find_in(view, ip, &module, &offset)) {
		module = UNKNOWN_MODULE;
		offset = ip;
	}
	return (struct cct_step){ CCT_FRAME,
				  CCT_FRAME_KEY(module, offset &
							((1ull << 40) - 1)) };
}

/* @t's path: its creation context, then frames @first..@n-1 of @ip/@sp
 * from the outermost in, with @t's open regions placed after the frame
 * that opened each (the deepest frame whose stack pointer is at or above
 * the one recorded when the region began).  @return the path's length. */
static unsigned build_path(const struct trms_thread *t,
			   const struct modules_view *view, const uintptr_t *ip,
			   const uintptr_t *sp, unsigned first, unsigned n,
			   struct cct_step *path, unsigned max)
{
	const struct sampler_thread *s = &t->sampler;
	size_t depth = __atomic_load_n(&t->engine.depth, __ATOMIC_RELAXED);
	const struct frame *stack = t->engine.stack;
	size_t region = 1;
	unsigned len = 0;

	for (unsigned i = 0; i < s->context_len && len < max; i++)
		path[len++] = s->context[i];
	for (unsigned i = n; i-- > first && len < max;) {
		while (region <= depth && sp[i] < stack[region].cfa &&
		       len < max)
			path[len++] = (struct cct_step){
				CCT_REGION, stack[region++].region };
		if (len < max)
			path[len++] = frame_step(view, ip[i]);
	}
	while (region <= depth && len < max)
		path[len++] = (struct cct_step){ CCT_REGION,
						 stack[region++].region };
	return len;
}

/* ---- the handler ---- */

static bool in_sync_routine(uintptr_t ip)
{
	for (unsigned i = 0; i < sampler.n_sync; i++)
		if (ip >= sampler.sync[i].start && ip < sampler.sync[i].end)
			return true;
	return false;
}

/* Threads blocked and working right now (the sampled one works). */
static void count_threads(double *idle, double *working)
{
	unsigned used = atomic_load_explicit(&slots_used, memory_order_acquire);
	unsigned live = 0, blocked = 0;

	for (unsigned i = 0; i < used; i++) {
		struct trms_thread *t =
			atomic_load_explicit(&slots[i], memory_order_acquire);
		if (!t)
			continue;
		live++;
		blocked += __atomic_load_n(&t->sampler.blocked,
					   __ATOMIC_RELAXED);
	}
	*idle = blocked;
	*working = live > blocked ? live - blocked : 1;
}

static void drop(struct sampler_thread *s, enum sample_drop why,
		 uint64_t periods)
{
	cct_add(&s->dropped[why], periods);
}

/* The sample, walked within @view: its path into the tree.  @return the
 * tree's node for it, or NULL (a drop, counted). */
static struct cct_node *record_walk(struct trms_thread *t,
				    const struct modules_view *view,
				    struct scratch *x, void *uctx,
				    uint64_t periods)
{
	struct sampler_thread *s = &t->sampler;
	unsigned n = unwind_frames(&s->stack, view, uctx, true, x->ip, x->sp,
				   MAX_FRAMES);

	if (!n) {
		drop(s, DROP_UNWIND, periods);
		return NULL;
	}
	unsigned first = charge_caller ? caller_of_library(view, x->ip, n) : 0;
	if (in_own_module(view, x->ip[first])) {
		drop(s, DROP_IN_LIBRARY, periods);
		return NULL;
	}
	unsigned len = build_path(t, view, x->ip, x->sp, first, n, x->path,
				  CCT_MAX_DEPTH);
	struct cct_node *leaf = cct_insert(&s->cct, x->path, len);
	if (!leaf)
		drop(s, DROP_NO_MEMORY, periods);
	return leaf;
}

/* Record the sample of @periods periods (more than one when the timer
 * expired again before its signal was taken) at the interrupted stack. */
static void take_sample(struct trms_thread *t, void *uctx, uint64_t periods)
{
	struct sampler_thread *s = &t->sampler;
	struct scratch *x = scratch;

	if (!x) {
		drop(s, DROP_NO_MEMORY, periods);
		return;
	}
	/* dlclose may be unmapping the unwind tables the walk reads. */
	const struct modules_view *view = modules_walk_begin();
	if (!view) {
		drop(s, DROP_IN_LOADER, periods);
		return;
	}
	struct cct_node *leaf = record_walk(t, view, x, uctx, periods);
	bool in_sync = leaf && in_sync_routine(x->ip[0]);
	modules_walk_end();
	if (!leaf)
		return;
	cct_add(&leaf->samples, periods);
	/* A CPU-time timer fires only on a thread that is running: inside
	 * a hooked write() copying data, say, it is working.  Only on the
	 * wall clock can a sample find the thread waiting. */
	if (sampler.wall && __atomic_load_n(&s->blocked, __ATOMIC_RELAXED)) {
		cct_add(&leaf->blocked, periods);
	} else {
		double idle, working;
		count_threads(&idle, &working);
		cct_add(&leaf->work, periods);
		cct_add_idleness(leaf, (double)periods * idle / working);
		if (in_sync)
			cct_add(&leaf->overhead, periods);
	}
	cct_add(&s->samples, periods);
	cct_add(&s->overrun, periods - 1);
}

static void on_sample(int sig, siginfo_t *info, void *uctx)
{
	int saved_errno = errno;
	struct trms_thread *t = thread_current;

	/* A CPU-time timer is checked at the kernel's ticks: when a tick
	 * finds more than one period used up, one signal comes for all of
	 * them, and the rest are its overrun. */
	uint64_t periods = 1;
	if (info && info->si_code == SI_TIMER && info->si_overrun > 0)
		periods += (uint64_t)info->si_overrun;

	if (sig == SIGTRAP && !our_trap(info)) {
		/* A breakpoint, raise(SIGTRAP)...: the program's. */
		signal_forward(sig, info, uctx);
		errno = saved_errno;
		return;
	}
	deliveries++;
	if (!t) {
		atomic_fetch_add_explicit(&sampler.unattached, 1,
					  memory_order_relaxed);
		errno = saved_errno;
		return;
	}
	__atomic_store_n(&t->sampler.signalled, true, __ATOMIC_RELEASE);
	uint64_t start = clock_ticks();
	struct sampler_thread *s = &t->sampler;
	if (!atomic_load_explicit(&sampler.on, memory_order_relaxed)) {
		/* a signal still in flight when sampling was turned off */
	} else if (t->busy) {
		drop(s, DROP_IN_LIBRARY, periods);
	} else if (modules_loader_busy()) {
		drop(s, DROP_IN_LOADER, periods);
	} else {
		/* libunwind calls dl_iterate_phdr and sigprocmask, which
		 * are our hooks: marked busy, the thread goes straight
		 * through them, recording nothing and taking no lock of the
		 * library's (the interrupted code may hold one).  libunwind
		 * blocks every signal around each lookup it makes, two
		 * system calls per frame: the handler runs with every signal
		 * blocked already (install_handler), and the hooks answer
		 * those calls without the kernel (signal_hooks.c). */
		s->in_handler = true;
		t->busy = true;
		take_sample(t, uctx, periods);
		t->busy = false;
		s->in_handler = false;
	}
	cct_add(&s->handler_ticks, clock_ticks() - start);
	errno = saved_errno;
}

static void on_toggle(int sig)
{
	(void)sig;
	sampler_set_enabled(!atomic_load(&sampler.on));
}

/* ---- timers ---- */

static clockid_t thread_cpu_clock(pid_t tid)
{
	/* The kernel's encoding of a thread's CPU clock
	 * (CPUCLOCK_PERTHREAD | CPUCLOCK_SCHED). */
	return (clockid_t)((~(unsigned)tid << 3) | 6u);
}

/* The profile writer reads another thread's tid and CPU time while that
 * thread may be setting them: both are single words, loaded and stored
 * atomically. */
uint64_t sampler_thread_cpu_ns(const struct sampler_thread *s)
{
	uint64_t cpu_ns = __atomic_load_n(&s->cpu_ns, __ATOMIC_RELAXED);
	pid_t tid = __atomic_load_n(&s->tid, __ATOMIC_RELAXED);
	struct timespec ts;

	if (cpu_ns || !tid || clock_gettime(thread_cpu_clock(tid), &ts) != 0)
		return cpu_ns;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int open_perf(pid_t tid, int sig)
{
	struct perf_event_attr pe;
	struct f_owner_ex owner = { F_OWNER_TID, tid };
	struct rlimit limit;
	int fd;

	memset(&pe, 0, sizeof(pe));
	pe.type = PERF_TYPE_SOFTWARE;
	pe.size = sizeof(pe);
	pe.config = PERF_COUNT_SW_TASK_CLOCK;
	pe.sample_period = sampler.period_ns;
	pe.disabled = 1;
	/* A task clock that excludes the kernel drops the periods that end
	 * in a system call: a thread busy in the kernel would go unseen. */
	pe.exclude_kernel = sampler.user_only;
	pe.exclude_hv = 1;
	pe.wakeup_events = 1;
	if (atomic_load(&sampler.trap)) {
		pe.sigtrap = 1;
		pe.remove_on_exec = 1; /* the kernel requires it */
		pe.sig_data = TRAP_COOKIE;
	}
	fd = (int)syscall(SYS_perf_event_open, &pe, tid, -1, -1,
			  PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -1;
	/* Out of the way of the low descriptors the program counts on. */
	if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur > 1024) {
		int high = fcntl(fd, F_DUPFD_CLOEXEC,
				 (int)(limit.rlim_cur / 2 > 65536
					       ? 65536
					       : limit.rlim_cur / 2));
		if (high >= 0) {
			close(fd);
			fd = high;
		}
	}
	if (atomic_load(&sampler.trap))
		return fd;
	if (fcntl(fd, F_SETFL, O_ASYNC) || fcntl(fd, F_SETSIG, sig) ||
	    fcntl(fd, F_SETOWN_EX, &owner)) {
		close(fd);
		return -1;
	}
	return fd;
}

static void timer_run(struct sampler_thread *s, bool run)
{
	struct itimerspec spec = { 0 };

	if (run) {
		spec.it_value.tv_sec = (time_t)(sampler.period_ns / 1000000000u);
		spec.it_value.tv_nsec = (long)(sampler.period_ns % 1000000000u);
		spec.it_interval = spec.it_value;
	}
	timer_settime(s->timer, 0, &spec, NULL);
}

static bool make_timer(struct sampler_thread *s, int sig)
{
	struct sigevent sev;

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = sig;
	sev._sigev_un._tid = s->tid;
	return timer_create(sampler.wall ? CLOCK_MONOTONIC
					 : thread_cpu_clock(s->tid),
			    &sev, &s->timer) == 0;
}

/* @s's perf_event descriptor, if it is still the event the library
 * opened: the program may have closed it (a daemon closes every
 * descriptor) and opened a file under the same number, which the library
 * must never touch.  Else -1, and the descriptor is forgotten.  (The
 * check is a query that only a perf_event answers.) */
static int own_perf_fd(struct sampler_thread *s)
{
	uint64_t id;

	if (s->perf_fd < 0)
		return -1;
	if (ioctl(s->perf_fd, PERF_EVENT_IOC_ID, &id) == 0 && id == s->perf_id)
		return s->perf_fd;
	s->perf_fd = -1;
	return -1;
}

/* Start or stop @s's timer as sampling is now on or off. */
static void run(struct sampler_thread *s, bool on)
{
	int fd = own_perf_fd(s);

	if (fd >= 0)
		ioctl(fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE,
		      0);
	else if (s->has_timer)
		timer_run(s, on);
}

static void arm(struct sampler_thread *s)
{
	int sig = sampler_signal();

	s->perf_fd = -1;
	s->has_timer = false;
	if (!sig)
		return;
	if (sampler.use_perf) {
		s->perf_fd = open_perf(s->tid, sig);
		if (s->perf_fd >= 0 &&
		    ioctl(s->perf_fd, PERF_EVENT_IOC_ID, &s->perf_id) != 0) {
			close(s->perf_fd);
			s->perf_fd = -1;
		}
	}
	if (s->perf_fd < 0)
		s->has_timer = make_timer(s, sig);
	run(s, atomic_load(&sampler.on));
}

static void disarm(struct sampler_thread *s)
{
	int fd = own_perf_fd(s);

	if (fd >= 0) {
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		close(fd);
		s->perf_fd = -1;
	}
	if (s->has_timer) {
		timer_delete(s->timer);
		s->has_timer = false;
	}
}

/* ---- signals ---- */

/* The highest real-time signal that nobody handles, other than @avoid. */
static int free_signal(int avoid)
{
	for (int sig = SIGRTMAX; sig >= SIGRTMIN; sig--) {
		struct sigaction old;
		if (sig == avoid || sig == config.sample_toggle_signal)
			continue;
		if (REAL(sigaction)(sig, NULL, &old) == 0 &&
		    !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL)
			return sig;
	}
	return 0;
}

static bool install_handler(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sample;
	/* Restart the calls the kernel can restart; the others are
	 * wrapped (blocking_hooks.c). */
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	/* Every signal blocked while a sample is taken, by the kernel as
	 * it enters the handler and restored as it leaves: no system call
	 * of ours for it. */
	sigfillset(&sa.sa_mask);
	return REAL(sigaction)(sig, &sa, NULL) == 0;
}

static void for_each_slot(void (*fn)(struct trms_thread *t, void *ctx),
			  void *ctx)
{
	unsigned used = atomic_load(&slots_used);

	for (unsigned i = 0; i < used; i++) {
		struct trms_thread *t = atomic_load(&slots[i]);
		if (t)
			fn(t, ctx);
	}
}

static void retarget(struct trms_thread *t, void *ctx)
{
	int sig = *(int *)ctx;
	struct sampler_thread *s = &t->sampler;

	int fd = own_perf_fd(s);

	if (fd >= 0) {
		fcntl(fd, F_SETSIG, sig);
	} else if (s->has_timer) {
		timer_delete(s->timer);
		s->has_timer = make_timer(s, sig);
		if (s->has_timer)
			timer_run(s, atomic_load(&sampler.on));
	}
}

bool sampler_yield_signal(int sig)
{
	if (!sig || sig != sampler_signal())
		return false;
	int fresh = free_signal(sig);
	if (!fresh || !install_handler(fresh)) {
		log_internal("the program takes signal %d, which sampling "
			     "used, and no other is free: sampling stopped",
			     sig);
		sampler_set_enabled(false);
		atomic_store(&sampler.signal, 0);
		return true;
	}
	atomic_store(&sampler.signal, fresh);
	for_each_slot(retarget, &fresh);
	log_debug("the program takes signal %d: sampling moved to %d", sig,
		  fresh);
	return true;
}

static void run_slot(struct trms_thread *t, void *ctx)
{
	run(&t->sampler, *(bool *)ctx);
}

void sampler_set_enabled(bool on)
{
	if (!sampler.configured || !sampler_signal())
		return;
	atomic_store(&sampler.on, on);
	for_each_slot(run_slot, &on);
}

/* ---- exec ---- */

/* Take the sample signals still pending for the calling thread, its
 * timer stopped: a SIGTRAP of the program's stays pending. */
static void drain_self(int sig)
{
	sigset_t ours, saved;
	const struct timespec now = { 0, 0 };

	sigemptyset(&ours);
	sigaddset(&ours, sig);
	if (sampler_traps())
		sigaddset(&ours, SIGTRAP);
	pthread_sigmask(SIG_BLOCK, &ours, &saved);
	siginfo_t info;
	bool program_trap = false;
	int got;
	while ((got = sigtimedwait(&ours, &info, &now)) > 0)
		if (got == SIGTRAP && !our_trap(&info))
			program_trap = true;
	if (program_trap)
		syscall(SYS_tgkill, getpid(), gettid(), SIGTRAP);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

void sampler_before_exec(void)
{
	struct trms_thread *t = thread_current;
	int sig = sampler_signal();

	if (!t || !sig)
		return;
	/* Pending signals survive exec, handlers do not: a sample signal
	 * still pending would kill the new image before it could install
	 * a handler.  Stop this thread's timer, then take what is pending.
	 * (Other threads' signals die with them.) */
	run(&t->sampler, false);
	drain_self(sig);
}

void sampler_stop_self(struct trms_thread *t)
{
	int sig = sampler_signal();

	sampler_thread_stop(t);
	if (sig)
		drain_self(sig);
}

static void ask_signal(struct trms_thread *t, void *ctx)
{
	int sig = *(int *)ctx;
	pid_t tid = __atomic_load_n(&t->sampler.tid, __ATOMIC_RELAXED);

	if (t == thread_current || !tid)
		return;
	__atomic_store_n(&t->sampler.signalled, false, __ATOMIC_RELAXED);
	syscall(SYS_tgkill, getpid(), tid, sig);
}

static void count_unsignalled(struct trms_thread *t, void *ctx)
{
	if (t != thread_current &&
	    !__atomic_load_n(&t->sampler.signalled, __ATOMIC_ACQUIRE))
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

	for_each_slot(ask_signal, &sig);
	for (int ms = 0; ms < 200; ms++) {
		waiting = 0;
		for_each_slot(count_unsignalled, &waiting);
		if (!waiting)
			return;
		nanosleep(&pause, NULL);
	}
}

void sampler_shut_down(void)
{
	int sig = sampler_signal();
	struct sigaction ignore, dfl;

	if (!sampler.configured || !sig)
		return;
	sampler_set_enabled(false);
	flush_other_threads(sig);
	atomic_store(&sampler.signal, 0);
	/* A disposition set to "ignore" discards what is pending, in every
	 * thread; then the default the signal had before sampling took it. */
	memset(&ignore, 0, sizeof(ignore));
	ignore.sa_handler = SIG_IGN;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	REAL(sigaction)(sig, &ignore, NULL);
	REAL(sigaction)(sig, &dfl, NULL);
	if (atomic_exchange(&sampler.trap, false)) {
		REAL(sigaction)(SIGTRAP, &ignore, NULL);
		signal_give_back(SIGTRAP);
	}
}

void sampler_after_failed_exec(void)
{
	struct trms_thread *t = thread_current;

	if (t && sampler_signal())
		run(&t->sampler, atomic_load(&sampler.on));
}

/* ---- threads ---- */

static void take_slot(struct trms_thread *t)
{
	for (unsigned i = 0; i < SLOTS; i++) {
		struct trms_thread *expected = NULL;
		if (atomic_compare_exchange_strong(&slots[i], &expected, t)) {
			unsigned used = atomic_load(&slots_used);
			while (used < i + 1 &&
			       !atomic_compare_exchange_weak(&slots_used, &used,
							     i + 1))
				;
			return;
		}
	}
}

static void leave_slot(struct trms_thread *t)
{
	unsigned used = atomic_load(&slots_used);

	for (unsigned i = 0; i < used; i++) {
		struct trms_thread *expected = t;
		if (atomic_compare_exchange_strong(&slots[i], &expected, NULL))
			return;
	}
}

void sampler_thread_start(struct trms_thread *t, bool created,
			  const struct cct_step *context, unsigned context_len)
{
	struct sampler_thread *s = &t->sampler;
	pid_t tid = (pid_t)syscall(SYS_gettid);

	__atomic_store_n(&s->tid, tid, __ATOMIC_RELAXED);
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
	if (cct_init(&s->cct)) {
		log_internal("no memory for a thread's call tree; it is not "
			     "sampled");
		return;
	}
	if (!scratch)
		scratch = vm_alloc(sizeof(*scratch));
	take_slot(t);
	arm(s);
}

void sampler_thread_stop(struct trms_thread *t)
{
	struct sampler_thread *s = &t->sampler;

	if (!sampler.configured)
		return;
	disarm(s);
	leave_slot(t);
	uint64_t cpu_ns = sampler_thread_cpu_ns(s);
	__atomic_store_n(&s->cpu_ns, cpu_ns ? cpu_ns : 1, __ATOMIC_RELAXED);
}

unsigned sampler_capture_context(struct trms_thread *t, struct cct_step *steps,
				 unsigned max)
{
	struct scratch *x = scratch;
	const struct modules_view *view;

	if (!sampler.configured || !x || !(view = modules_walk_begin()))
		return 0;
	unsigned n = unwind_frames_here(&t->sampler.stack, view, x->ip, x->sp,
					MAX_FRAMES);
	/* Leave out the library's own frames (this function and the
	 * pthread_create hook). */
	unsigned first = 0;
	while (first < n && in_own_module(view, x->ip[first]))
		first++;
	if (!sampler.own_module_known)
		first = n > 2 ? 2 : n;
	unsigned len = build_path(t, view, x->ip, x->sp, first, n, steps, max);
	modules_walk_end();
	return len;
}

static void close_slot_fd(struct trms_thread *t, void *ctx)
{
	struct trms_thread *self = ctx;

	/* The descriptors came with the copied memory and file table:
	 * they count the parent's threads. */
	int fd = own_perf_fd(&t->sampler);

	if (fd >= 0)
		close(fd);
	t->sampler.perf_fd = -1;
	t->sampler.has_timer = false; /* timers are not inherited */
	if (t != self)
		leave_slot(t);
}

void sampler_after_fork_child(struct trms_thread *self)
{
	if (!sampler.configured)
		return;
	for_each_slot(close_slot_fd, self);
	if (!self)
		return;
	__atomic_store_n(&self->sampler.tid, (pid_t)syscall(SYS_gettid),
			 __ATOMIC_RELAXED);
	self->sampler.samples = 0;
	self->sampler.overrun = 0;
	memset(self->sampler.dropped, 0, sizeof(self->sampler.dropped));
	self->sampler.handler_ticks = 0;
	cct_fini(&self->sampler.cct);
	cct_init(&self->sampler.cct);
	arm(&self->sampler);
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

static void note_own_module(void)
{
	Dl_info info;
	uintptr_t offset;

	/* Only a shared library of its own can be told apart from the
	 * program's code. */
	if (dladdr((void *)sampler_start, &info) && info.dli_fname &&
	    strstr(info.dli_fname, ".so") &&
	    modules_find((uintptr_t)sampler_start, &sampler.own_module,
			 &offset))
		sampler.own_module_known = true;
}

/* Whether perf events can time threads here: counting kernel time too
 * if allowed, else user time only. */
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

/* Samples as SIGTRAP from the events themselves, unless turned off, or
 * someone else has a use for SIGTRAP: a tracer, or the program (which
 * may have set its handler before the library started). */
static bool trap_possible(void)
{
	struct sigaction old;

	return config.sample_trap &&
	       REAL(sigaction)(SIGTRAP, NULL, &old) == 0 &&
	       !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL &&
	       !traced();
}

/* Settle how perf events are opened here: with SIGTRAP if it can be had,
 * counting kernel time if allowed.  @return false if none opens. */
static bool perf_works(void)
{
	pid_t self = (pid_t)syscall(SYS_gettid);
	bool with_trap = trap_possible();

	for (int trap = with_trap; trap >= 0; trap--) {
		atomic_store(&sampler.trap, trap);
		for (int user_only = 0; user_only <= 1; user_only++) {
			sampler.user_only = user_only;
			int fd = open_perf(self, sampler_signal());
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

void sampler_start(void)
{
	modules_init();
	sampler.hz = config.sample_hz;
	sampler.wall = config.sample_wall;
	sampler.configured = sampler.hz > 0;
	if (!sampler.configured)
		return;
	sampler.period_ns = 1000000000u / sampler.hz;
	if (!unwind_init()) {
		log_internal("libunwind cannot be set up: call stacks are not "
			     "sampled");
		sampler.configured = false;
		return;
	}
	note_sync_routines();
	note_own_module();
	int sig = free_signal(0);
	if (!sig || !install_handler(sig)) {
		log_internal("no free real-time signal: call stacks are not "
			     "sampled");
		sampler.configured = false;
		return;
	}
	atomic_store(&sampler.signal, sig);
	/* A thread's CPU-time timer is checked at each tick of the kernel,
	 * at almost no cost: up to the tick rate it keeps up, each sample a
	 * little late, and where a tick finds two periods used up (a thread
	 * that shares its CPU is charged time in uneven slices) the signal's
	 * overrun says so and the sample counts for both.  Faster, only a
	 * perf_event task clock, whose high-resolution timer costs more per
	 * sample, keeps up. */
	sampler.use_perf = !sampler.wall && sampler.hz > tick_limited_hz() &&
			   perf_works();
	if (sampler.use_perf && sampler_traps() && !install_handler(SIGTRAP))
		atomic_store(&sampler.trap, false);
	atomic_store(&sampler.on, true);
	if (config.sample_toggle_signal) {
		struct sigaction sa, old;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_toggle;
		sa.sa_flags = SA_RESTART;
		if (REAL(sigaction)(config.sample_toggle_signal, NULL, &old) ==
			    0 &&
		    old.sa_handler == SIG_DFL)
			REAL(sigaction)(config.sample_toggle_signal, &sa, NULL);
	}
	log_info("sampling call stacks at %u Hz of %s time (%s%s, signal "
		 "%d)",
		 sampler.hz, sampler.wall ? "wall" : "CPU",
		 !sampler.use_perf   ? "POSIX timer"
		 : sampler.user_only ? "perf_event, user time only"
				     : "perf_event",
		 sampler.use_perf && sampler_traps() ? ", as SIGTRAP" : "",
		 sampler.use_perf && sampler_traps() ? SIGTRAP : sig);
}

/* ---- totals ---- */

void sampler_totals(struct sampler_totals *out)
{
	struct trms_thread *t;
	uint64_t handler_ticks = 0;

	memset(out, 0, sizeof(*out));
	out->enabled = sampler.configured;
	out->clock = sampler.wall ? "wall" : "cpu";
	out->source = sampler.use_perf ? "perf_event" : "posix_timer";
	out->kernel = !(sampler.use_perf && sampler.user_only);
	out->hz = sampler.hz;
	out->signal = sampler.use_perf && sampler_traps() ? SIGTRAP
							  : sampler_signal();
	out->unattached = atomic_load(&sampler.unattached);
	/* Called with runtime.lock held: every thread, live or dead. */
	cds_list_for_each_entry(t, &runtime.threads, link) {
		const struct sampler_thread *s = &t->sampler;
		out->samples += cct_load(&s->samples);
		out->overrun += cct_load(&s->overrun);
		for (int i = 0; i < SAMPLE_DROPS; i++)
			out->dropped[i] += cct_load(&s->dropped[i]);
		handler_ticks += cct_load(&s->handler_ticks);
		out->cpu_ns += sampler_thread_cpu_ns(s);
	}
	out->handler_ns = clock_ticks_to_ns(handler_ticks);
}
