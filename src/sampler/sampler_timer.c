/*
 * sampler_timer.c - each thread's sampling timer: a POSIX timer on the
 * thread's CPU clock (or the monotonic clock), or a perf_event task clock
 * that signals (or raises SIGTRAP) at every period.
 */
#define _GNU_SOURCE
#include "sampler/sampler_internal.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef TRAP_PERF
#define TRAP_PERF 6 /* the kernel's si_code (asm-generic/siginfo.h) */
#endif

/* Did this SIGTRAP come from one of our sampling events?  si_perf_data
 * (not in glibc's siginfo_t) follows si_addr in the kernel's layout. */
bool sampler_our_trap(const siginfo_t *info)
{
	unsigned long data;

	if (!info || info->si_code != TRAP_PERF)
		return false;
	memcpy(&data, (const char *)&info->si_addr + sizeof(void *),
	       sizeof(data));
	return data == TRAP_COOKIE;
}

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

int sampler_open_perf(pid_t tid, int sig)
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

void sampler_run(struct sampler_thread *s, bool on)
{
	int fd = own_perf_fd(s);

	if (fd >= 0)
		ioctl(fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE,
		      0);
	else if (s->has_timer)
		timer_run(s, on);
}

/* A thread on the task clock that begins more blocking calls than this
 * per second of its CPU time leaves it for the CPU-time timer.  The task
 * clock is switched out and in at every context switch, 1 to 8 µs in a
 * virtual machine here (docs/performance.md, "Real servers"): a server
 * thread that waits at every request pays that many times over what its
 * samples cost, while the CPU-time timer costs nothing per switch and,
 * above the kernel's tick rate, counts the periods each signal covers.
 * 2,000 waits per CPU second is at most some 1.5% of the thread's time
 * in switches; a CPU-bound thread waits far less. */
#define WAITS_PER_CPU_SECOND 2000
/* Judged over this much of the thread's CPU time at a time. */
#define JUDGE_EVERY_NS 50000000u

void sampler_judge_waits(struct sampler_thread *s, uint64_t periods)
{
	if (!sampler.perf_adaptive ||
	    __atomic_load_n(&s->perf_fd, __ATOMIC_RELAXED) < 0)
		return;
	s->periods_unjudged += periods;
	uint64_t cpu_ns = s->periods_unjudged * sampler.period_ns;
	if (cpu_ns < JUDGE_EVERY_NS)
		return;
	uint32_t waits = __atomic_load_n(&s->waits, __ATOMIC_RELAXED);
	uint64_t n = (uint32_t)(waits - s->waits_judged);
	s->waits_judged = waits;
	s->periods_unjudged = 0;
	if (n * 1000000000u > (uint64_t)WAITS_PER_CPU_SECOND * cpu_ns)
		__atomic_store_n(&s->leave_perf, true, __ATOMIC_RELAXED);
}

void sampler_leave_perf(struct sampler_thread *s)
{
	int sig = sampler_signal();

	__atomic_store_n(&s->leave_perf, false, __ATOMIC_RELAXED);
	int fd = own_perf_fd(s);
	if (fd < 0 || !sig || s->has_timer || !make_timer(s, sig))
		return;
	/* Another thread turning sampling on or off (sampler_run) sees
	 * the event or no timer yet, or the timer; the timer starts as the
	 * last word says. */
	__atomic_store_n(&s->perf_fd, -1, __ATOMIC_SEQ_CST);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	close(fd);
	__atomic_store_n(&s->has_timer, true, __ATOMIC_SEQ_CST);
	timer_run(s, atomic_load(&sampler.on));
	atomic_fetch_add(&sampler.threads_left_perf, 1);
}

void sampler_arm(struct sampler_thread *s)
{
	int sig = sampler_signal();

	s->perf_fd = -1;
	s->has_timer = false;
	if (!sig)
		return;
	if (sampler.use_perf) {
		s->perf_fd = sampler_open_perf(s->tid, sig);
		if (s->perf_fd >= 0 &&
		    ioctl(s->perf_fd, PERF_EVENT_IOC_ID, &s->perf_id) != 0) {
			close(s->perf_fd);
			s->perf_fd = -1;
		}
	}
	if (s->perf_fd < 0)
		s->has_timer = make_timer(s, sig);
	sampler_run(s, atomic_load(&sampler.on));
}

void sampler_disarm(struct sampler_thread *s)
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

void sampler_retarget(struct sampler_thread *s, void *ctx)
{
	int sig = *(int *)ctx;
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

void sampler_forget_timers(struct sampler_thread *s)
{
	int fd = own_perf_fd(s);

	if (fd >= 0)
		close(fd);
	s->perf_fd = -1;
	s->has_timer = false; /* timers are not inherited */
}
