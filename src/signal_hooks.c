/*
 * signal_hooks.c - the library's signals, next to the program's.
 *
 * Three things, behind the program's back but never changing what it
 * sees:
 *
 *  - SIGTERM and SIGINT: when the program leaves them at their default,
 *    the library's handler writes the profile, puts the default back and
 *    raises the signal again, so the process dies exactly as it would.
 *  - The sampling signal: if the program wants it, the library moves its
 *    sampling to another free signal first (sampler_yield_signal).  When
 *    samples arrive on SIGTRAP (sampler_traps), which cannot move, the
 *    library's handler keeps it and passes on every SIGTRAP that is not
 *    a sample as the program's disposition says (signal_forward).
 *  - Counting the program's signals: a handler the program installs is
 *    installed behind a trampoline that counts deliveries per thread, so
 *    that a blocking call interrupted only by the sampling signal can be
 *    retried, and one interrupted by a signal of the program's cannot be.
 *
 * sigaction and signal report to the program the dispositions it set
 * (its own handler, or the default where the library's handler stands).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "real.h"
#include "thread.h"
#include "unwind.h"
#include "vm.h"
#include "hooks.h"
#include "profile_write.h"

static const int managed[] = { SIGTERM, SIGINT };

/* The library's own terminating-signal handler is installed. */
static atomic_bool ours[NSIG];

/* The program's disposition, when it installed a handler: immutable
 * records, swapped whole, never freed (a delivery may be reading one). */
static _Atomic(struct sigaction *) program[NSIG];

/* Deliveries of the program's handlers on this thread. */
static __thread unsigned program_signals
	__attribute__((tls_model("initial-exec")));

/* Serialises changes of dispositions.  Taken with every signal blocked,
 * so that a handler cannot interrupt its owner and wait for it. */
static atomic_flag changing = ATOMIC_FLAG_INIT;

unsigned signal_program_deliveries(void)
{
	return program_signals;
}

static bool is_managed(int sig)
{
	for (size_t i = 0; i < sizeof(managed) / sizeof(managed[0]); i++)
		if (managed[i] == sig)
			return true;
	return false;
}

static bool is_function(const struct sigaction *sa)
{
	return (sa->sa_flags & SA_SIGINFO) ||
	       (sa->sa_handler != SIG_DFL && sa->sa_handler != SIG_IGN &&
		sa->sa_handler != SIG_ERR);
}

static void lock(sigset_t *saved)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, saved);
	while (atomic_flag_test_and_set_explicit(&changing,
						 memory_order_acquire))
		;
}

static void unlock(const sigset_t *saved)
{
	atomic_flag_clear_explicit(&changing, memory_order_release);
	pthread_sigmask(SIG_SETMASK, saved, NULL);
}

/* ---- the program's handlers, counted ---- */

static void trampoline(int sig, siginfo_t *info, void *uctx)
{
	const struct sigaction *p =
		atomic_load_explicit(&program[sig], memory_order_acquire);

	program_signals++;
	if (!p)
		return;
	/* With SA_RESETHAND the kernel put the default back already. */
	if (p->sa_flags & SA_RESETHAND)
		atomic_store_explicit(&program[sig], NULL,
				      memory_order_release);
	if (p->sa_flags & SA_SIGINFO)
		p->sa_sigaction(sig, info, uctx);
	else
		p->sa_handler(sig);
}

/* Install @act (a handler of the program's) behind the trampoline. */
static int install_counted(int sig, const struct sigaction *act)
{
	struct sigaction *record = vm_alloc(sizeof(*record));
	struct sigaction sa = *act;

	if (!record)
		return REAL(sigaction)(sig, act, NULL);
	*record = *act;
	atomic_store_explicit(&program[sig], record, memory_order_release);
	sa.sa_sigaction = trampoline;
	sa.sa_flags |= SA_SIGINFO;
	int rc = REAL(sigaction)(sig, &sa, NULL);
	if (rc)
		atomic_store_explicit(&program[sig], NULL,
				      memory_order_release);
	return rc;
}

/* End the process by @sig, as its default action would. */
static void die_of(int sig)
{
	struct sigaction dfl;
	sigset_t set;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	REAL(sigaction)(sig, &dfl, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	syscall(SYS_tgkill, getpid(), gettid(), sig);
}

void signal_forward(int sig, siginfo_t *info, void *uctx)
{
	const struct sigaction *p =
		atomic_load_explicit(&program[sig], memory_order_acquire);

	if (p && is_function(p)) {
		/* The library's handler runs with every signal blocked:
		 * the program's runs with the mask it asked for, on top of
		 * the interrupted one (the kernel puts that back when the
		 * library's handler returns). */
		sigset_t mask = ((ucontext_t *)uctx)->uc_sigmask;
		for (int other = 1; other < NSIG; other++)
			if (sigismember(&p->sa_mask, other) == 1)
				sigaddset(&mask, other);
		if (!(p->sa_flags & SA_NODEFER))
			sigaddset(&mask, sig);
		REAL(pthread_sigmask)(SIG_SETMASK, &mask, NULL);
		trampoline(sig, info, uctx);
	} else if (!p || p->sa_handler != SIG_IGN) {
		die_of(sig);
	}
}

/* ---- SIGTERM and SIGINT ---- */

static void on_terminating_signal(int sig)
{
	int saved_errno = errno;
	struct sigaction dfl;
	sigset_t set;

	/* The program has exited: the signal comes too late to matter. */
	if (runtime_exiting())
		return;
	if (runtime_active())
		runtime_write_profile(WRITE_ABRUPT);
	/* The program's disposition is the default: die of the signal. */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	REAL(sigaction)(sig, &dfl, NULL);
	atomic_store(&ours[sig], false);
	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	syscall(SYS_tgkill, getpid(), gettid(), sig);
	errno = saved_errno;
}

void signal_hooks_start(void)
{
	for (size_t i = 0; i < sizeof(managed) / sizeof(managed[0]); i++) {
		struct sigaction old, sa;
		int sig = managed[i];

		if (REAL(sigaction)(sig, NULL, &old) != 0 || is_function(&old) ||
		    old.sa_handler != SIG_DFL)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_terminating_signal;
		sigfillset(&sa.sa_mask);
		if (REAL(sigaction)(sig, &sa, NULL) == 0)
			atomic_store(&ours[sig], true);
	}
}

void signal_give_back(int sig)
{
	sigset_t saved;
	const struct sigaction *p;
	struct sigaction dfl;

	lock(&saved);
	atomic_store(&ours[sig], false);
	p = atomic_load_explicit(&program[sig], memory_order_acquire);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	if (p && is_function(p))
		install_counted(sig, p);
	else
		REAL(sigaction)(sig, p ? p : &dfl, NULL);
	unlock(&saved);
}

void signal_hooks_stop(void)
{
	for (size_t i = 0; i < sizeof(managed) / sizeof(managed[0]); i++)
		if (atomic_load(&ours[managed[i]]))
			signal_give_back(managed[i]);
}

/* ---- the hooks ---- */

/* What the program believes @sig's disposition is, where the library has
 * put something of its own; false if the kernel's answer is right. */
static bool program_view(int sig, struct sigaction *old)
{
	const struct sigaction *p =
		atomic_load_explicit(&program[sig], memory_order_acquire);

	if (p) {
		*old = *p;
		return true;
	}
	if (atomic_load(&ours[sig]) || sig == sampler_signal() ||
	    (sig == SIGTRAP && sampler_traps())) {
		memset(old, 0, sizeof(*old));
		old->sa_handler = SIG_DFL;
		return true;
	}
	return false;
}

/* Keep @act as the program's disposition of @sig for signal_forward,
 * the library's handler staying in place. */
static int record_program(int sig, const struct sigaction *act)
{
	struct sigaction *record = NULL;

	if (is_function(act) || act->sa_handler == SIG_IGN) {
		record = vm_alloc(sizeof(*record));
		if (!record)
			return errno = ENOMEM, -1;
		*record = *act;
	}
	atomic_store_explicit(&program[sig], record, memory_order_release);
	return 0;
}

static int change(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction view;
	bool have_view = program_view(sig, &view);
	int rc = 0;

	if (act && sig == SIGTRAP && sampler_traps()) {
		/* Samples arrive on SIGTRAP: the library's handler stays
		 * and passes the program its own. */
		rc = record_program(sig, act);
	} else if (act) {
		/* The program takes the sampling signal: sampling moves. */
		if (is_function(act) || act->sa_handler == SIG_IGN)
			sampler_yield_signal(sig);
		if (is_managed(sig) && atomic_load(&ours[sig]) &&
		    !is_function(act) && act->sa_handler == SIG_DFL) {
			/* The library's handler behaves as the default. */
		} else if (is_function(act)) {
			rc = install_counted(sig, act);
			if (!rc)
				atomic_store(&ours[sig], false);
		} else {
			rc = REAL(sigaction)(sig, act, have_view ? NULL : old);
			if (!rc) {
				atomic_store_explicit(&program[sig], NULL,
						      memory_order_release);
				atomic_store(&ours[sig], false);
			}
			if (!have_view)
				return rc;
		}
	}
	if (rc)
		return rc;
	if (old) {
		if (have_view)
			*old = view;
		else
			rc = REAL(sigaction)(sig, NULL, old);
	}
	return rc;
}

EXPORT int sigaction(int sig, const struct sigaction *act,
		     struct sigaction *old)
{
	sigset_t saved;
	int rc;

	if (!REAL(sigaction))
		return errno = ENOSYS, -1;
	/* The library's own needs, and signals it cannot touch (SIGKILL,
	 * SIGSTOP, out of range), go straight through. */
	if (sig <= 0 || sig >= NSIG || sig == SIGKILL || sig == SIGSTOP ||
	    !runtime_active())
		return REAL(sigaction)(sig, act, old);
	lock(&saved);
	rc = change(sig, act, old);
	int saved_errno = errno;
	unlock(&saved);
	errno = saved_errno;
	return rc;
}

/* signal(): BSD semantics, as glibc gives them: the call is restarted and
 * the signal blocked while its handler runs. */
EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sig > 0 && sig < NSIG)
		sigaddset(&sa.sa_mask, sig);
	if (sig <= 0 || sig >= NSIG) {
		errno = EINVAL;
		return SIG_ERR;
	}
	if (sigaction(sig, &sa, &old))
		return SIG_ERR;
	return old.sa_handler;
}

/* ---- signal masks ---- */

/* While a sample is taken every signal is blocked already (sampler.c):
 * the unwinder's own calls, which block them all and put them back, need
 * not reach the kernel.  Any other call goes straight through. */
static bool taking_sample(void)
{
	struct trms_thread *t = thread_current;

	return t && t->sampler.in_handler;
}

EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	__typeof__(real.sigprocmask) fn = REAL(sigprocmask);

	if (taking_sample()) {
		if (old)
			sigfillset(old);
		return 0;
	}
	return fn ? fn(how, set, old) : (errno = ENOSYS, -1);
}

EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	__typeof__(real.pthread_sigmask) fn = REAL(pthread_sigmask);

	if (taking_sample()) {
		if (old)
			sigfillset(old);
		return 0;
	}
	return fn ? fn(how, set, old) : ENOSYS;
}

/* ---- alternate signal stacks ---- */

/* Where the program's handlers run is a stack the sampler may walk
 * (unwind.h).  A sanitizer's start-up calls this before its runtime is
 * ready and before the library has started: then it goes straight
 * through, uninstrumented. */
EXPORT __attribute__((no_sanitize("address", "thread", "undefined"))) int
sigaltstack(const stack_t *ss, stack_t *old)
{
	__typeof__(real.sigaltstack) fn = real.sigaltstack;

	if (!fn)
		fn = (__typeof__(fn))dlsym(RTLD_NEXT, "sigaltstack");
	if (!fn)
		return errno = ENOSYS, -1;
	int rc = fn(ss, old);
	if (rc == 0 && ss && runtime_active()) {
		int saved_errno = errno;
		if (ss->ss_flags & SS_DISABLE)
			unwind_note_alt_stack(NULL, 0);
		else
			unwind_note_alt_stack(ss->ss_sp, ss->ss_size);
		errno = saved_errno;
	}
	return rc;
}
