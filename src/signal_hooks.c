/*
 * signal_hooks.c - the program's calls that set or look at signal
 * dispositions and masks, and the library's SIGTERM and SIGINT.
 *
 *  - sigaction and signal go to signals.c, the one owner of dispositions:
 *    the program sees the dispositions it set, and the library keeps the
 *    signals it needs (see signals.h).
 *  - sigprocmask and pthread_sigmask go straight through, except inside a
 *    handler of the library's: every signal is blocked then already, and
 *    the unwinder's own calls (two per frame) are answered without the
 *    kernel.
 *  - sigaltstack tells the unwinder where the program's handlers run.
 *  - SIGTERM and SIGINT: when the program leaves them at their default,
 *    the library's handler writes the profile and the process dies of
 *    the signal exactly as it would have.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "hooks.h"
#include "output/profile_write.h"
#include "base/real.h"
#include "runtime/runtime.h"
#include "base/signals.h"
#include "runtime/thread.h"
#include "sampler/unwind.h"

static const int terminating[] = { SIGTERM, SIGINT };

/* ---- SIGTERM and SIGINT ---- */

static void on_terminating_signal(int sig, siginfo_t *info, void *uctx)
{
	(void)info;
	(void)uctx;
	/* The program has exited: the signal comes too late to matter. */
	if (profile_write_exiting())
		return;
	if (runtime_active())
		profile_write_now(WRITE_ABRUPT);
	/* The program's disposition is the default: die of the signal. */
	signals_die_of(sig);
}

void signal_hooks_start(void)
{
	for (size_t i = 0; i < sizeof(terminating) / sizeof(terminating[0]);
	     i++)
		signals_claim(terminating[i], on_terminating_signal, 0, NULL);
}

void signal_hooks_stop(void)
{
	for (size_t i = 0; i < sizeof(terminating) / sizeof(terminating[0]);
	     i++)
		signals_release(terminating[i], false);
}

/* ---- dispositions ---- */

EXPORT int sigaction(int sig, const struct sigaction *act,
		     struct sigaction *old)
{
	if (!REAL(sigaction))
		return errno = ENOSYS, -1;
	if (!runtime_active())
		return REAL(sigaction)(sig, act, old);
	return signals_sigaction(sig, act, old);
}

/* signal(): BSD semantics, as glibc gives them: the call is restarted and
 * the signal blocked while its handler runs. */
EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
	struct sigaction sa, old;

	if (sig <= 0 || sig >= NSIG) {
		errno = EINVAL;
		return SIG_ERR;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, sig);
	if (sigaction(sig, &sa, &old))
		return SIG_ERR;
	return old.sa_handler;
}

/* ---- signal masks ---- */

typedef int mask_call(int how, const sigset_t *set, sigset_t *old);

/* The program's call @fn (the C library's sigprocmask or pthread_sigmask,
 * which have one signature).  Inside a handler of the library's every
 * signal is blocked already: answered without the kernel (the unwinder
 * asks twice per frame).  A sample that the mask held back comes as the
 * call that unblocks it returns, inside the C library: until libunwind is
 * open, the thread is marked as passing through it meanwhile
 * (thread_pass_begin), so that the sample may open it.  Once it is, the
 * call is a tail call: no frame of the library's between the program's
 * and the C library's (a sample charged to the library's caller cuts at
 * the library's frames nearest the leaf). */
static inline __attribute__((always_inline)) int
pass_mask_call(mask_call *fn, int how, const sigset_t *set, sigset_t *old)
{
	if (signals_in_library_handler()) {
		if (old)
			sigfillset(old);
		return 0;
	}
	if (unwind_ready())
		return fn(how, set, old);
	struct sampler_thread *s = thread_pass_begin();
	int rc = fn(how, set, old);
	thread_pass_end(s);
	return rc;
}

EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	__typeof__(real.sigprocmask) fn = REAL(sigprocmask);

	if (!fn)
		return errno = ENOSYS, -1;
	return pass_mask_call(fn, how, set, old);
}

EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	__typeof__(real.pthread_sigmask) fn = REAL(pthread_sigmask);

	if (!fn)
		return ENOSYS;
	return pass_mask_call(fn, how, set, old);
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
