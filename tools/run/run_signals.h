/*
 * run_signals.h - `trms run` between its caller and the command: the
 * command inherits exactly the dispositions and signal mask trms run was
 * given, and every signal a process sends to trms run reaches the command.
 *
 * trms run takes the signals it may forward through a signalfd (blocked,
 * so none can kill it before the command ends), except those it was given
 * ignored: they stay ignored, for both (nohup).  A signal a process sends
 * (kill, sigqueue, tgkill) is passed on; one the kernel raises is not:
 * the terminal sends ^C, ^\, ^Z, SIGWINCH and hang-ups to the whole
 * foreground process group, the command included, and trms run's own
 * SIGPIPE and SIGXFSZ are its own.  Nor is one the command sends its
 * parent (it would come straight back).  When the command stops for the
 * terminal (SIGTSTP, SIGTTIN, SIGTTOU), trms run stops too, so that the
 * shell sees the job stopped; a SIGCONT reaches the command only if it is
 * stopped (the shell's `fg` continues both already).
 */
#ifndef TRMS_RUN_SIGNALS_H
#define TRMS_RUN_SIGNALS_H

#include <signal.h>
#include <stdbool.h>
#include <sys/signalfd.h>
#include <sys/types.h>

struct run_signals {
	struct sigaction start[NSIG]; /* the dispositions trms run was given */
	sigset_t start_mask;
	sigset_t taken; /* read through the signalfd */
	bool changed_child; /* SIGCHLD was given ignored: put to default */
};

/* Note the dispositions and mask trms run was started with. */
void run_signals_record(struct run_signals *s);

/* Block the signals to forward and SIGCHLD, and return a signalfd for
 * them (non-blocking, close-on-exec), or -errno. */
int run_signals_take(struct run_signals *s);

/* In the command's process, before exec: the dispositions and mask as
 * they were given to trms run. */
void run_signals_restore(const struct run_signals *s);

/* Pass @info's signal on to @child if it should be (see above).
 * @child_stopped: the command is stopped now. */
void run_signals_forward(const struct signalfd_siginfo *info, pid_t child,
			 bool child_stopped);

/* The command stopped with @sig: stop trms run as well if it is a stop
 * of job control.  Returns when trms run is continued. */
void run_signals_follow_stop(int sig);

/* End trms run by @sig, as the command ended (no core dump of its own);
 * returns only if that failed. */
void run_signals_die_of(int sig);

/* "Killed", "Terminated", "Real-time signal 3", ... */
const char *run_signal_name(int sig);

#endif
