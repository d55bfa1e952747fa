/*
 * sandbox_hooks.c - seccomp and chroot: a process that locks itself in.
 *
 * A seccomp filter may forbid any system call, down to the one that
 * returns from a signal handler, and kill the process for it.  Whatever
 * the library would do in a sandboxed thread (take a sample, grow its
 * shadow memory, write the profile at exit) could be what kills it.  So
 * the library watches the calls that install a filter or strict mode
 * (prctl(PR_SET_SECCOMP) and the seccomp system call, which C libraries
 * and libseccomp make through syscall()), and before the call goes
 * through:
 *  - writes the profile as it stands (the sandbox may forbid writing it
 *    later; if the process ends outside the sandbox, the profile is
 *    written again then, complete);
 *  - puts SIGTERM and SIGINT back to the program's dispositions, so that
 *    none of the library's code runs on them in the sandbox;
 *  - ends the thread's profiling as if it exited: timer disarmed, pending
 *    samples taken, no state; its later calls go straight through;
 *  - if the filter covers every thread (SECCOMP_FILTER_FLAG_TSYNC, or the
 *    thread is the only one), stops sampling in the whole process,
 *    discarding samples already sent, and the library goes inert.
 * A filter installed by other means (a system call instruction of the
 * program's own, a filter inherited at exec) is not seen: see
 * docs/hooks.md.
 *
 * A process that changes its root directory (a daemon locking itself in
 * an empty one) may no longer find libunwind, which the sampler opens
 * when a stack is first walked: it is opened before chroot goes through.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <linux/seccomp.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "call.h"
#include "base/log.h"
#include "base/real.h"
#include "runtime/thread.h"
#include "hooks.h"
#include "output/profile_write.h"
#include "output/window_write.h"

static void before_sandbox(bool every_thread)
{
	if (!runtime_active() || thread_is_sandboxed())
		return;
	int saved_errno = errno;
	every_thread = every_thread || thread_alone();
	log_debug("the program enters a seccomp sandbox (%s): profile "
		  "written now, %s",
		  every_thread ? "every thread" : "this thread",
		  every_thread ? "the library stops" : "this thread unprofiled");
	/* The window writer is a thread too: a filter on every thread would
	 * hold it.  It ends first, its last window cut now. */
	if (every_thread)
		window_writer_stop(true);
	profile_write_now(WRITE_EXEC);
	/* The cost clock's choice reads a file, which the sandbox may
	 * forbid: made now if a region may still come. */
	if (!every_thread)
		clock_init();
	signal_hooks_stop();
	thread_enter_sandbox();
	if (every_thread) {
		sampler_shut_down();
		atomic_store(&runtime.tag, 0);
		runtime_go_inert();
	}
	errno = saved_errno;
}

/* Both may be called by a sanitizer's start-up, before its runtime is
 * ready and before the library has started: uninstrumented, and the real
 * function found without the library's help then. */
#define UNINSTRUMENTED \
	__attribute__((no_sanitize("address", "thread", "undefined")))

#define REAL_EARLY(name)                                                   \
	(real.name ? real.name                                             \
		   : (__typeof__(real.name))dlsym(RTLD_NEXT, #name))

EXPORT UNINSTRUMENTED int prctl(int option, ...)
{
	__typeof__(real.prctl) fn = REAL_EARLY(prctl);
	unsigned long arg[4];
	va_list ap;

	va_start(ap, option);
	for (int i = 0; i < 4; i++)
		arg[i] = va_arg(ap, unsigned long);
	va_end(ap);
	if (!fn)
		return errno = ENOSYS, -1;
	/* Strict mode holds the calling thread only. */
	if (option == PR_SET_SECCOMP &&
	    (arg[0] == SECCOMP_MODE_STRICT || arg[0] == SECCOMP_MODE_FILTER))
		before_sandbox(false);
	return fn(option, arg[0], arg[1], arg[2], arg[3]);
}

EXPORT UNINSTRUMENTED long syscall(long number, ...)
{
	__typeof__(real.syscall) fn = REAL_EARLY(syscall);
	long arg[6];
	va_list ap;

	va_start(ap, number);
	for (int i = 0; i < 6; i++)
		arg[i] = va_arg(ap, long);
	va_end(ap);
	if (!fn)
		return errno = ENOSYS, -1;
	if (number == SYS_seccomp && (arg[0] == SECCOMP_SET_MODE_STRICT ||
				      arg[0] == SECCOMP_SET_MODE_FILTER))
		before_sandbox(arg[0] == SECCOMP_SET_MODE_FILTER &&
			       (arg[1] & SECCOMP_FILTER_FLAG_TSYNC));
	return fn(number, arg[0], arg[1], arg[2], arg[3], arg[4], arg[5]);
}

EXPORT int chroot(const char *path)
{
	__typeof__(real.chroot) fn = REAL(chroot);
	int rc;

	if (!fn)
		return errno = ENOSYS, -1;
	if (runtime_active()) {
		int saved_errno = errno;
		struct trms_thread *t = call_enter(&rc);
		if (t) {
			sampler_open_unwinder();
			call_leave(t);
		}
		errno = saved_errno;
	}
	return fn(path);
}
