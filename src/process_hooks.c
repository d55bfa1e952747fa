/*
 * process_hooks.c - the process's life cycle: every process the library
 * is loaded into leaves exactly one profile of its own.
 *
 *  fork   the child starts a fresh profile (pthread_atfork handlers, which
 *         also keep every lock of the library still across the fork so
 *         that the child never inherits one held by a thread it lacks);
 *  exec*  the profile is written before the image is replaced (if exec
 *         fails, it is written again later, complete);
 *  _exit  the profile is written first (normal exit writes it from the
 *         library's destructor).
 *
 * A child made by vfork shares the parent's memory: the library must not
 * touch its state there, so nothing is written unless the process is the
 * one the state belongs to.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/real.h"
#include "engine/region.h"
#include "runtime/thread.h"
#include "output/trace_write.h"
#include "calibrate.h"
#include "hooks.h"
#include "output/profile_write.h"
#include "output/window_write.h"

/*
 * Whose time is it?  The handlers' own work is the library's: a sample
 * that finds the thread there is counted as such (busy).  But
 * urcu_bp_before_fork blocks every signal until after the fork, so the
 * samples due during the fork system call itself (the kernel copying the
 * address space: the program's call, its own time) are delivered when
 * urcu_bp_after_fork_parent unblocks them; those are charged to the
 * program's call of fork, the library's frames cut off
 * (sampler_charge_caller).
 */
static __thread bool fork_made_busy __attribute__((tls_model("initial-exec")));

static void fork_busy(bool busy)
{
	struct trms_thread *t = thread_current;

	if (busy && t && !t->busy) {
		t->busy = fork_made_busy = true;
	} else if (!busy && fork_made_busy) {
		fork_made_busy = false;
		if (t)
			t->busy = false;
	}
}

/* A sandboxed thread leaves the library alone (see sandbox_hooks.c): its
 * child, sandboxed too, has no use for it. */
static void before_fork(void)
{
	if (thread_is_sandboxed())
		return;
	fork_busy(true);
	pthread_mutex_lock(&runtime.flush_lock);
	pthread_mutex_lock(&runtime.engine.renumber_lock);
	pthread_mutex_lock(&runtime.lock);
	pthread_mutex_lock(&runtime.engine.threads_lock);
	region_lock_for_fork();
	cds_lfs_pop_lock(&runtime.engine.pool.idle);
	urcu_bp_before_fork();
	/* Every signal is blocked now, until after the fork. */
	fork_busy(false);
}

static void unlock_all(void)
{
	cds_lfs_pop_unlock(&runtime.engine.pool.idle);
	region_unlock_after_fork();
	pthread_mutex_unlock(&runtime.engine.threads_lock);
	pthread_mutex_unlock(&runtime.lock);
	pthread_mutex_unlock(&runtime.engine.renumber_lock);
	pthread_mutex_unlock(&runtime.flush_lock);
}

static void after_fork_parent(void)
{
	if (thread_is_sandboxed())
		return;
	sampler_charge_caller(true);
	urcu_bp_after_fork_parent();
	unlock_all();
	sampler_charge_caller(false);
}

static void after_fork_child(void)
{
	if (thread_is_sandboxed()) {
		runtime_go_inert();
		return;
	}
	fork_busy(true);
	urcu_bp_after_fork_child();
	unlock_all();
	runtime.pid = getpid();
	clock_after_fork_child();
	runtime.start_realtime_ns = runtime_realtime_ns();
	atomic_store(&runtime.finished, false);
	engine_after_fork_child(&runtime.engine);
	thread_after_fork_child();
	trace_after_fork_child();
	calibrate_after_fork_child();
	/* The parent's window writer is not in the child: its own. */
	window_writer_after_fork_child();
	fork_busy(false);
}

void process_hooks_start(void)
{
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

/* The new image will not know what this one measured. */
static void before_exec(void)
{
	if (runtime_active()) {
		/* The windows end with this image's profile. */
		window_writer_stop(true);
		profile_write_now(WRITE_EXEC);
		sampler_before_exec();
	}
}

/* Only reached if exec failed: go on as before. */
static int after_exec(int rc)
{
	int saved_errno = errno;

	if (runtime_active()) {
		sampler_after_failed_exec();
		window_writer_start();
	}
	errno = saved_errno;
	return rc;
}

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	__typeof__(real.execve) fn = REAL(execve);

	before_exec();
	return fn ? after_exec(fn(path, argv, envp)) : (errno = ENOSYS, -1);
}

EXPORT int execv(const char *path, char *const argv[])
{
	__typeof__(real.execv) fn = REAL(execv);

	before_exec();
	return fn ? after_exec(fn(path, argv)) : (errno = ENOSYS, -1);
}

EXPORT int execvp(const char *file, char *const argv[])
{
	__typeof__(real.execvp) fn = REAL(execvp);

	before_exec();
	return fn ? after_exec(fn(file, argv)) : (errno = ENOSYS, -1);
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	__typeof__(real.execvpe) fn = REAL(execvpe);

	before_exec();
	return fn ? after_exec(fn(file, argv, envp)) : (errno = ENOSYS, -1);
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	__typeof__(real.fexecve) fn = REAL(fexecve);

	before_exec();
	return fn ? after_exec(fn(fd, argv, envp)) : (errno = ENOSYS, -1);
}

/* The execl family passes arguments as a list: gather them into a vector
 * on the stack and hand them to the vector form above. */
#define COLLECT_ARGS(first, ap, argv, extra)                               \
	do {                                                               \
		size_t n_ = 1;                                             \
		va_list count_;                                            \
		va_copy(count_, ap);                                       \
		while (va_arg(count_, char *))                             \
			n_++;                                              \
		va_end(count_);                                            \
		argv = alloca((n_ + 1) * sizeof(char *));                  \
		argv[0] = (char *)(first);                                 \
		for (size_t i_ = 1; i_ <= n_; i_++)                        \
			argv[i_] = va_arg(ap, char *);                     \
		extra;                                                     \
	} while (0)

EXPORT int execl(const char *path, const char *arg, ...)
{
	char **argv;
	va_list ap;

	va_start(ap, arg);
	COLLECT_ARGS(arg, ap, argv, (void)0);
	va_end(ap);
	return execv(path, argv);
}

EXPORT int execlp(const char *file, const char *arg, ...)
{
	char **argv;
	va_list ap;

	va_start(ap, arg);
	COLLECT_ARGS(arg, ap, argv, (void)0);
	va_end(ap);
	return execvp(file, argv);
}

EXPORT int execle(const char *path, const char *arg, ...)
{
	char **argv, **envp;
	va_list ap;

	va_start(ap, arg);
	COLLECT_ARGS(arg, ap, argv, envp = va_arg(ap, char **));
	va_end(ap);
	return execve(path, argv, envp);
}

/* _exit runs no destructor: write the profile here, carefully, since
 * _exit may be called from a signal handler. */
static void before_exit_now(void)
{
	if (runtime_active())
		profile_write_now(WRITE_ABRUPT);
}

static __attribute__((noreturn)) void exit_group_now(int status)
{
	for (;;)
		syscall(SYS_exit_group, status);
}

EXPORT void _exit(int status)
{
	__typeof__(real.exit_now) fn = REAL(exit_now);

	before_exit_now();
	if (fn)
		fn(status);
	exit_group_now(status);
}

EXPORT void _Exit(int status)
{
	__typeof__(real.exit_now_c99) fn = REAL(exit_now_c99);

	before_exit_now();
	if (fn)
		fn(status);
	exit_group_now(status);
}
