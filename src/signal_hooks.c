/*
 * signal_hooks.c - a program killed by SIGTERM or SIGINT that did not
 * handle them still leaves its profile.
 *
 * At start, for each of these signals whose disposition is the default,
 * the library installs its own handler: it writes the profile, puts the
 * default disposition back and raises the signal again, so the process
 * dies exactly as it would have, with the same status.
 *
 * The program must not notice: sigaction and signal are interposed so that
 * asking for the disposition reports the default, and setting a handler
 * (or ignoring the signal) replaces the library's.  Setting the default
 * keeps the library's handler, which behaves as the default does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "real.h"
#include "runtime.h"

static const int managed[] = { SIGTERM, SIGINT };

/* The library's handler is installed for this signal. */
static atomic_bool ours[NSIG];

static bool is_managed(int sig)
{
	for (size_t i = 0; i < sizeof(managed) / sizeof(managed[0]); i++)
		if (managed[i] == sig)
			return true;
	return false;
}

static void on_terminating_signal(int sig)
{
	int saved_errno = errno;
	struct sigaction dfl;
	sigset_t set;

	if (atomic_load(&runtime_state) == 1)
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

		if (REAL(sigaction)(sig, NULL, &old) != 0 ||
		    (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_terminating_signal;
		sigfillset(&sa.sa_mask);
		if (REAL(sigaction)(sig, &sa, NULL) == 0)
			atomic_store(&ours[sig], true);
	}
}

/* The disposition as the program believes it to be. */
static void default_disposition(struct sigaction *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sa_handler = SIG_DFL;
	sigemptyset(&sa->sa_mask);
}

static bool sets_default(const struct sigaction *act)
{
	return !(act->sa_flags & SA_SIGINFO) && act->sa_handler == SIG_DFL;
}

__attribute__((visibility("default"))) int
sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	__typeof__(real.sigaction) fn = REAL(sigaction);

	if (!fn)
		return errno = ENOSYS, -1;
	if (sig <= 0 || sig >= NSIG || !is_managed(sig) ||
	    !atomic_load(&ours[sig]))
		return fn(sig, act, old);
	if (act && !sets_default(act)) {
		int rc = fn(sig, act, NULL);
		if (rc)
			return rc;
		atomic_store(&ours[sig], false);
	}
	if (old)
		default_disposition(old);
	return 0;
}

__attribute__((visibility("default"))) sighandler_t signal(int sig,
							    sighandler_t handler)
{
	__typeof__(real.signal) fn = REAL(signal);

	if (!fn)
		return errno = ENOSYS, SIG_ERR;
	if (sig <= 0 || sig >= NSIG || !is_managed(sig) ||
	    !atomic_load(&ours[sig]))
		return fn(sig, handler);
	if (handler != SIG_DFL) {
		sighandler_t rc = fn(sig, handler);
		if (rc == SIG_ERR)
			return rc;
		atomic_store(&ours[sig], false);
	}
	return SIG_DFL;
}
