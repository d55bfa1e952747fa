/*
 * signals.c - the one owner of signal dispositions (see signals.h).
 */
#define _GNU_SOURCE
#include "base/signals.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "base/real.h"
#include "base/vm.h"

/* What the library holds of one signal.  Written under the lock, read by
 * the dispatcher in any thread: each field a word, loaded once. */
struct held {
	_Atomic(signals_handler *) handler; /* NULL: not held */
	void (*_Atomic taken)(int sig);
	bool (*_Atomic ours)(const siginfo_t *info); /* shared: whose */
};

static struct held held[NSIG];

/* The program's disposition, where it set one that the library's stands
 * in front of (a shared signal), or one of its handlers (installed behind
 * the counting trampoline): immutable records, swapped whole, never freed
 * (a delivery may be reading one). */
static _Atomic(struct sigaction *) program[NSIG];

/* Deliveries on this thread, of the library's handlers and of the
 * program's; and whether a handler of the library's runs now. */
static __thread unsigned ours_delivered, program_delivered
	__attribute__((tls_model("initial-exec")));
static __thread bool in_handler __attribute__((tls_model("initial-exec")));

/* Serialises changes of dispositions.  Taken with every signal blocked,
 * so that a handler cannot interrupt its owner and wait for it; taken
 * again by the same thread (a `taken` callback claiming another signal)
 * it just counts. */
static atomic_flag changing = ATOMIC_FLAG_INIT;
static __thread unsigned lock_depth __attribute__((tls_model("initial-exec")));
static __thread sigset_t lock_saved __attribute__((tls_model("initial-exec")));

static void lock(void)
{
	sigset_t all;

	if (lock_depth++)
		return;
	sigfillset(&all);
	REAL(pthread_sigmask)(SIG_SETMASK, &all, &lock_saved);
	while (atomic_flag_test_and_set_explicit(&changing,
						 memory_order_acquire))
		;
}

static void unlock(void)
{
	if (--lock_depth)
		return;
	atomic_flag_clear_explicit(&changing, memory_order_release);
	REAL(pthread_sigmask)(SIG_SETMASK, &lock_saved, NULL);
}

static bool is_function(const struct sigaction *sa)
{
	return (sa->sa_flags & SA_SIGINFO) ||
	       (sa->sa_handler != SIG_DFL && sa->sa_handler != SIG_IGN &&
		sa->sa_handler != SIG_ERR);
}

static bool valid(int sig)
{
	return sig > 0 && sig < NSIG && sig != SIGKILL && sig != SIGSTOP;
}

bool signals_held(int sig)
{
	return valid(sig) &&
	       atomic_load_explicit(&held[sig].handler, memory_order_relaxed);
}

/* ---- the program's handlers, counted ---- */

static void trampoline(int sig, siginfo_t *info, void *uctx)
{
	const struct sigaction *p =
		atomic_load_explicit(&program[sig], memory_order_acquire);

	program_delivered++;
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

/* A copy of @act that stays, or NULL. */
static struct sigaction *record(const struct sigaction *act)
{
	struct sigaction *r = vm_alloc(sizeof(*r));

	if (r)
		*r = *act;
	return r;
}

/* Install @act, the program's disposition of @sig: a handler behind the
 * trampoline that counts it, anything else as it is. */
static int install_program(int sig, const struct sigaction *act)
{
	struct sigaction sa = *act;
	struct sigaction *r;

	if (!is_function(act)) {
		atomic_store_explicit(&program[sig], NULL,
				      memory_order_release);
		return REAL(sigaction)(sig, act, NULL);
	}
	if (!(r = record(act)))
		return REAL(sigaction)(sig, act, NULL);
	atomic_store_explicit(&program[sig], r, memory_order_release);
	sa.sa_sigaction = trampoline;
	sa.sa_flags |= SA_SIGINFO;
	int rc = REAL(sigaction)(sig, &sa, NULL);
	if (rc)
		atomic_store_explicit(&program[sig], NULL,
				      memory_order_release);
	return rc;
}

/* ---- the library's handlers ---- */

void signals_die_of(int sig)
{
	struct sigaction dfl;
	sigset_t set;

	atomic_store_explicit(&held[sig].handler, NULL, memory_order_relaxed);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	REAL(sigaction)(sig, &dfl, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	REAL(pthread_sigmask)(SIG_UNBLOCK, &set, NULL);
	syscall(SYS_tgkill, getpid(), gettid(), sig);
}

/* A delivery of a shared signal that is not the library's: to the
 * program's disposition. */
static void forward(int sig, siginfo_t *info, void *uctx)
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
		signals_die_of(sig);
	}
}

/* Where the kernel makes every handler return: the C library's
 * restorer, which glibc's sigaction sets for every handler. */
static void *restorer;

const void *signals_restorer(void)
{
	return __atomic_load_n(&restorer, __ATOMIC_RELAXED);
}

/* What the kernel calls for every signal the library holds. */
static void dispatch(int sig, siginfo_t *info, void *uctx)
{
	int saved_errno = errno;

	/* (Stored once: not a line every thread's every sample writes.) */
	if (!__atomic_load_n(&restorer, __ATOMIC_RELAXED))
		__atomic_store_n(&restorer, __builtin_return_address(0),
				 __ATOMIC_RELAXED);
	signals_handler *handler =
		atomic_load_explicit(&held[sig].handler, memory_order_acquire);
	bool (*ours)(const siginfo_t *) =
		atomic_load_explicit(&held[sig].ours, memory_order_relaxed);

	if (ours && !ours(info)) {
		forward(sig, info, uctx);
	} else if (handler) {
		ours_delivered++;
		in_handler = true;
		handler(sig, info, uctx);
		in_handler = false;
	}
	errno = saved_errno;
}

static int install_dispatch(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = dispatch;
	/* Restart the calls the kernel can restart; the others are wrapped
	 * (blocking_hooks.c).  Every signal blocked while a handler of the
	 * library's runs, by the kernel as it enters it and restored as it
	 * leaves: no system call of the library's for it. */
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	return REAL(sigaction)(sig, &sa, NULL) ? -errno : 0;
}

/* @sig is at its default, and not the library's already. */
static bool free_for_us(int sig)
{
	struct sigaction old;

	return !signals_held(sig) && REAL(sigaction)(sig, NULL, &old) == 0 &&
	       !is_function(&old) && old.sa_handler == SIG_DFL;
}

int signals_free_realtime(int avoid)
{
	for (int sig = SIGRTMAX; sig >= SIGRTMIN; sig--)
		if (sig != avoid && free_for_us(sig))
			return sig;
	return 0;
}

static int hold(int sig, signals_handler *handler, void (*taken)(int),
		bool (*ours)(const siginfo_t *))
{
	int rc;

	if (!valid(sig) || !handler)
		return -EINVAL;
	lock();
	if (!free_for_us(sig)) {
		unlock();
		return -EBUSY;
	}
	atomic_store_explicit(&held[sig].taken, taken, memory_order_relaxed);
	atomic_store_explicit(&held[sig].ours, ours, memory_order_relaxed);
	atomic_store_explicit(&held[sig].handler, handler,
			      memory_order_release);
	rc = install_dispatch(sig);
	if (rc)
		atomic_store_explicit(&held[sig].handler, NULL,
				      memory_order_relaxed);
	unlock();
	return rc;
}

int signals_claim(int sig, signals_handler *handler, unsigned flags,
		  void (*taken)(int sig))
{
	(void)flags;
	return hold(sig, handler, taken, NULL);
}

int signals_share(int sig, signals_handler *handler,
		  bool (*ours)(const siginfo_t *info))
{
	return ours ? hold(sig, handler, NULL, ours) : -EINVAL;
}

/* Give @sig back to the program, the lock held. */
static void release_locked(int sig, bool discard)
{
	const struct sigaction *p;
	struct sigaction dfl, ignore;

	if (!signals_held(sig))
		return;
	memset(&ignore, 0, sizeof(ignore));
	ignore.sa_handler = SIG_IGN;
	if (discard)
		REAL(sigaction)(sig, &ignore, NULL);
	atomic_store_explicit(&held[sig].handler, NULL, memory_order_relaxed);
	atomic_store_explicit(&held[sig].ours, NULL, memory_order_relaxed);
	p = atomic_load_explicit(&program[sig], memory_order_acquire);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	install_program(sig, p ? p : &dfl);
}

void signals_release(int sig, bool discard)
{
	if (!valid(sig))
		return;
	lock();
	release_locked(sig, discard);
	unlock();
}

/* ---- the program's sigaction ---- */

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
	if (signals_held(sig)) {
		memset(old, 0, sizeof(*old));
		old->sa_handler = SIG_DFL;
		return true;
	}
	return false;
}

/* The program sets @act for @sig, which the library holds. */
static int change_held(int sig, const struct sigaction *act)
{
	void (*taken)(int);

	if (atomic_load_explicit(&held[sig].ours, memory_order_relaxed)) {
		/* Shared: the library's handler stays and passes the
		 * program its own.  The default needs no record. */
		struct sigaction *r = NULL;
		if ((is_function(act) || act->sa_handler == SIG_IGN) &&
		    !(r = record(act)))
			return errno = ENOMEM, -1;
		atomic_store_explicit(&program[sig], r, memory_order_release);
		return 0;
	}
	/* Claimed: the library's handler behaves as the default; anything
	 * else is the program's to have. */
	if (!is_function(act) && act->sa_handler == SIG_DFL)
		return 0;
	taken = atomic_load_explicit(&held[sig].taken, memory_order_relaxed);
	if (taken)
		taken(sig);
	atomic_store_explicit(&held[sig].handler, NULL, memory_order_relaxed);
	return install_program(sig, act);
}

static int change(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction view;
	bool have_view = program_view(sig, &view);
	int rc = 0;

	if (act && signals_held(sig)) {
		rc = change_held(sig, act);
	} else if (act && is_function(act)) {
		rc = install_program(sig, act);
	} else if (act) {
		rc = REAL(sigaction)(sig, act, have_view ? NULL : old);
		if (!rc)
			atomic_store_explicit(&program[sig], NULL,
					      memory_order_release);
		if (!have_view)
			return rc;
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

int signals_sigaction(int sig, const struct sigaction *act,
		      struct sigaction *old)
{
	int rc;

	if (!valid(sig))
		return REAL(sigaction)(sig, act, old);
	lock();
	rc = change(sig, act, old);
	int saved_errno = errno;
	unlock();
	errno = saved_errno;
	return rc;
}

/* ---- deliveries ---- */

bool signals_in_library_handler(void)
{
	return in_handler;
}

void interruptions_note(struct interruptions *n)
{
	n->ours = ours_delivered;
	n->program = program_delivered;
}

bool interrupted_by_us_only(const struct interruptions *n)
{
	return ours_delivered != n->ours && program_delivered == n->program;
}
