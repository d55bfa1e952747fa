/*
 * run_signals.c - `trms run`'s signals (see run_signals.h).
 */
#define _GNU_SOURCE
#include "run_signals.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* The signals there are to take: glibc keeps the two below SIGRTMIN for
 * itself and will not block them. */
static bool exists(int sig)
{
	return sig < 32 || (sig >= SIGRTMIN && sig <= SIGRTMAX);
}

void run_signals_record(struct run_signals *s)
{
	memset(s, 0, sizeof(*s));
	sigprocmask(SIG_SETMASK, NULL, &s->start_mask);
	for (int sig = 1; sig < NSIG; sig++)
		if (exists(sig))
			sigaction(sig, NULL, &s->start[sig]);
}

static bool ignored(const struct run_signals *s, int sig)
{
	return !(s->start[sig].sa_flags & SA_SIGINFO) &&
	       s->start[sig].sa_handler == SIG_IGN;
}

int run_signals_take(struct run_signals *s)
{
	sigemptyset(&s->taken);
	for (int sig = 1; sig < NSIG; sig++)
		if (exists(sig) && sig != SIGKILL && sig != SIGSTOP &&
		    !ignored(s, sig))
			sigaddset(&s->taken, sig);
	/* trms run waits for its command: SIGCHLD given ignored would reap
	 * it unseen. */
	if (ignored(s, SIGCHLD)) {
		struct sigaction dfl;
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigaction(SIGCHLD, &dfl, NULL);
		s->changed_child = true;
	}
	sigaddset(&s->taken, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &s->taken, NULL))
		return -errno;
	int fd = signalfd(-1, &s->taken, SFD_NONBLOCK | SFD_CLOEXEC);
	return fd >= 0 ? fd : -errno;
}

void run_signals_restore(const struct run_signals *s)
{
	if (s->changed_child)
		sigaction(SIGCHLD, &s->start[SIGCHLD], NULL);
	sigprocmask(SIG_SETMASK, &s->start_mask, NULL);
}

void run_signals_forward(const struct signalfd_siginfo *info, pid_t child,
			 bool child_stopped)
{
	int sig = (int)info->ssi_signo;
	pid_t from = (pid_t)info->ssi_pid;
	int code = info->ssi_code;

	if (sig == SIGCHLD || child <= 0)
		return;
	/* Sent by a process: kill, sigqueue, tgkill. */
	if (code != SI_USER && code != SI_QUEUE && code != SI_TKILL)
		return;
	if (from == getpid() || from == child)
		return;
	if (sig == SIGCONT && !child_stopped)
		return;
	if (code == SI_QUEUE) {
		union sigval value;
		value.sival_ptr = (void *)(uintptr_t)info->ssi_ptr;
		sigqueue(child, sig, value);
	} else {
		kill(child, sig);
	}
}

void run_signals_follow_stop(int sig)
{
	if (sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU)
		kill(getpid(), SIGSTOP);
}

void run_signals_die_of(int sig)
{
	struct sigaction dfl;
	struct rlimit no_core = { 0, 0 };
	sigset_t set;

	/* The command dumped core if it was to: trms run does not add its
	 * own. */
	setrlimit(RLIMIT_CORE, &no_core);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(sig, &dfl, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	fflush(NULL);
	kill(getpid(), sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

const char *run_signal_name(int sig)
{
	static char text[64];
	const char *name = sigdescr_np(sig);

	if (sig >= SIGRTMIN && sig <= SIGRTMAX) {
		snprintf(text, sizeof(text), "real-time signal %d",
			 sig - SIGRTMIN);
		return text;
	}
	return name ? name : "unknown signal";
}
