/*
 * profile_write.c - when and where the process's profile is written (what
 * it says: profile_dump.c): one write at a time, nothing interrupting it,
 * handed to `trms run` or written as a file, and the exit's write, after
 * which a terminating signal comes too late to matter.
 */
#define _GNU_SOURCE
#include "output/profile_write.h"
#include "output/trace_write.h"
#include "runtime/thread.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/lock.h"
#include "base/log.h"
#include "output/output.h"
#include "format/profile_writer.h"
#include "base/real.h"
#include "output/run_link.h"
#include "base/output_template.h"
#include "output/profile_dump.h"
#include "base/text.h"
#include "base/vm.h"

/* Written under flush_lock; too big for a thread's stack to be sure. */
static struct profile_writer writer VM_SET_APART;

/* Why a profile could not be put together (profile_dump's -EBUSY). */
static const char busy[] = "the library's state was in use by an "
			   "interrupted thread";

/* The thread holding flush_lock (0: none): an abrupt write on that very
 * thread interrupted it, and waiting would be for ever. */
static atomic_int flush_owner;

/* How long an abrupt write waits for another thread's write to end. */
#define ABRUPT_FLUSH_WAIT_NS 2000000000ull

/* An abrupt write on the thread that holds flush_lock interrupted that
 * very write: waiting would be for ever. */
static bool flush_held_here(void)
{
	return atomic_load(&flush_owner) == gettid();
}

/* Take flush_lock for a write for @reason: an abrupt one (a signal handler
 * may have interrupted the lock's owner) only tries for a while. */
static bool take_flush_lock_for(enum write_reason reason)
{
	if (reason != WRITE_ABRUPT) {
		pthread_mutex_lock(&runtime.flush_lock);
		return true;
	}
	return mutex_lock_within(&runtime.flush_lock, ABRUPT_FLUSH_WAIT_NS,
				 flush_held_here);
}

static bool take_flush_lock(enum write_reason reason)
{
	if (!take_flush_lock_for(reason))
		return false;
	atomic_store(&flush_owner, gettid());
	return true;
}

static void release_flush_lock(void)
{
	atomic_store(&flush_owner, 0);
	pthread_mutex_unlock(&runtime.flush_lock);
}

/* Block what could interrupt the write on this thread: every signal but
 * the faults (which cannot wait) and the sampling signals.  A handler of
 * the program's that ends the process (_exit in a SIGTERM handler) then
 * runs after the write, not in the middle of it; a signal aimed at the
 * whole process goes to another thread or waits as long. */
static void block_signals(sigset_t *saved)
{
	static const int keep[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE,
				    SIGTRAP, SIGSYS, SIGABRT };
	sigset_t set;

	sigfillset(&set);
	for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
		sigdelset(&set, keep[i]);
	if (sampler_signal() > 0)
		sigdelset(&set, sampler_signal());
	REAL(pthread_sigmask)(SIG_BLOCK, &set, saved);
}

static void restore_signals(const sigset_t *saved)
{
	REAL(pthread_sigmask)(SIG_SETMASK, saved, NULL);
}

/* Written by the window writer, one window at a time (window_write.c). */
static struct profile_writer window_writer VM_SET_APART;

/* The writer for @window (NULL: the process's profile). */
static struct profile_writer *writer_for(const struct dump_window *window)
{
	return window ? &window_writer : &writer;
}

/* Write the profile file (of @window, or NULL) at @path.  @return 0 or
 * -errno, with words for it in *@why. */
static int write_file(const char *path, enum write_reason reason,
		      const struct dump_window *window, const char **why)
{
	struct profile_writer *w = writer_for(window);
	int rc;

	w->version = profile_dump_version(reason == WRITE_ABRUPT, window);
	rc = profile_writer_open(w, path);

	if (!rc) {
		rc = profile_dump_part(w, reason == WRITE_ABRUPT, window);
		if (rc) {
			profile_writer_abort(w);
			*why = busy;
			return rc;
		}
		rc = profile_writer_commit(w);
	}
	*why = atomic_file_error(&w->file, rc);
	return rc;
}

/* Hand the profile to trms run.  @return 0, -errno (*@why: the
 * library's trouble), or 1 if trms run could not be reached or the
 * connection broke: nothing was kept. */
static int deliver(bool last, enum write_reason reason,
		   const struct dump_window *window, const char **why)
{
	struct profile_writer *w = writer_for(window);
	struct run_message m = { .kind = RUN_PROFILE, .last = last,
				 .window = window ? window->number : 0 };
	struct run_delivery d;

	if (run_link_open(&d, &m))
		return 1;
	w->version = profile_dump_version(reason == WRITE_ABRUPT, window);
	profile_writer_start(w, run_link_send, &d);
	int rc = profile_dump_part(w, reason == WRITE_ABRUPT, window);
	if (rc) {
		/* Cut short: trms run keeps nothing of it. */
		run_link_close(&d);
		*why = busy;
		return rc;
	}
	rc = profile_writer_end(w);
	if (!rc)
		rc = run_link_finish(&d);
	run_link_close(&d);
	return rc ? 1 : 0;
}

/* Under trms run, with a template whose directory does not depend on the
 * process: trms run writes the profile. */
static bool delivering(void)
{
	const char *slash = strrchr(config.output, '/');

	return run_link_active() &&
	       !(slash && memchr(config.output, '%',
				 (size_t)(slash - config.output)));
}

/* The final write at a normal exit: 0 before, 1 while it lasts, 2 after
 * (exit_written_ns: when it ended). */
static atomic_int exit_phase;
static _Atomic uint64_t exit_written_ns;

/* How long after the exit's write a terminating signal still counts as
 * having come too late: the process would be gone. */
#define EXIT_GRACE_NS 10000000ull

void profile_write_exit_begin(void)
{
	atomic_store(&exit_phase, 1);
}

void profile_write_exit_end(void)
{
	atomic_store(&exit_written_ns, clock_monotonic_ns());
	atomic_store(&exit_phase, 2);
}

bool profile_write_exiting(void)
{
	int phase = atomic_load(&exit_phase);

	return phase == 1 ||
	       (phase == 2 && clock_monotonic_ns() <
				      atomic_load(&exit_written_ns) +
					      EXIT_GRACE_NS);
}

/* The profile of a process that recorded nothing is not written (unless
 * TRMS_EMPTY=keep, trms run --all, or trms_flush asks for it, or it is
 * one part of a partitioned run, which merge must find whole): a build or
 * a shell script run with the library would otherwise leave a file for
 * every command, and creating a file is most of what the library costs a
 * process that does nothing.  Under trms run, a word to it instead. */
static bool skip_empty(bool last, enum write_reason reason)
{
	if (reason == WRITE_FLUSH || config.keep_empty ||
	    config.partition_count > 1 || run_link_keeps_empty() ||
	    profile_recorded_anything(reason == WRITE_ABRUPT))
		return false;
	if (run_link_active()) {
		struct run_message m = { .kind = RUN_EMPTY, .last = last };
		run_link_note(&m);
	}
	return true;
}

/* Write the profile here (the template's directory depends on the
 * process, or trms run cannot be reached: gone, another network
 * namespace, a sandbox), and tell trms run if there is one. */
static int write_here(bool last, enum write_reason reason,
		      const struct dump_window *window, char *path, size_t len,
		      const char **why)
{
	char main_path[CONFIG_PATH_MAX];
	int rc = output_path(config.output, main_path, sizeof(main_path));

	if (!rc && window)
		rc = template_windowed(main_path, window->number, path, len);
	else if (!rc && strlen(main_path) < len)
		strcpy(path, main_path);
	else if (!rc)
		rc = -ENAMETOOLONG;
	if (rc)
		*why = text_errno(-rc);
	else
		rc = write_file(path, reason, window, why);
	if (run_link_active()) {
		struct run_message m = {
			.kind = rc ? RUN_FAILED : RUN_WRITTEN,
			.last = last,
			.window = window ? window->number : 0,
			.path = path,
			.error = -rc,
			.reason = *why,
		};
		run_link_note(&m);
	}
	return rc;
}

int profile_write_now(enum write_reason reason)
{
	bool last = reason == WRITE_EXIT || reason == WRITE_ABRUPT;
	char path[CONFIG_PATH_MAX] = "";

	/* The trace covers what the profile covers (TRMS_TRACE); not from
	 * a signal handler, which may have interrupted a traced operation
	 * holding the trace's lock. */
	if (reason == WRITE_EXIT)
		trace_finish();
	const char *why = NULL;
	bool empty = false, handed = false;
	sigset_t saved;
	int rc;

	/* Not in a process that is not ours, nor in a sandboxed thread,
	 * where any system call may be fatal (sandbox_hooks.c wrote the
	 * profile as the thread entered the sandbox). */
	if (!runtime_own_process() || thread_is_sandboxed())
		return 0;
	block_signals(&saved);
	if (!take_flush_lock(reason)) {
		/* Whoever holds the profile will not finish it: nothing of
		 * it may stay behind. */
		atomic_file_discard(&writer.file);
		restore_signals(&saved);
		log_info("profile not written: another thread was writing it "
			 "when the process ended");
		return -EBUSY;
	}
	if (atomic_load(&runtime.finished)) {
		release_flush_lock();
		restore_signals(&saved);
		return 0;
	}
	if (last) {
		/* The last write: the calling thread's open regions end
		 * now. */
		thread_close_own();
		atomic_store(&runtime.finished, true);
	}
	/* Samples waiting for libunwind are walked now (not from a
	 * signal handler: it opens libunwind). */
	if (reason != WRITE_ABRUPT)
		sampler_walk_kept();
	empty = skip_empty(last, reason);
	if (empty) {
		rc = 0;
	} else {
		/* Costs in ticks: the rate is looked for at the first cost
		 * written, if any. */
		writer.scale = 1.0;
		writer.ns_per_tick =
			config.cost == COST_NS ? clock_ns_per_tick : NULL;
		rc = delivering() ? deliver(last, reason, NULL, &why) : 1;
		handed = rc == 0;
		if (handed)
			strcpy(path, "trms run, which writes it in its "
				     "directory");
		else if (rc == 1)
			rc = write_here(last, reason, NULL, path,
					sizeof(path), &why);
	}
	release_flush_lock();
	restore_signals(&saved);
	if (rc == -EBUSY)
		log_info("profile not written: %s", why);
	else if (rc && run_link_active())
		/* trms run says it, or it is the library's own trouble. */
		log_info("profile not written to %s: %s", path, why);
	else if (rc)
		log_environment("cannot write the profile to %s: %s", path,
				why);
	else if (empty && last)
		log_info("nothing recorded (no samples, regions or I/O): no "
			 "profile (TRMS_EMPTY=keep writes one)");
	else if (last)
		log_info("profile %s %s (shadow memory %zu KiB)",
			 handed ? "handed to" : "written to", path,
			 engine_shadow_bytes(&runtime.engine) >> 10);
	if (!rc && last)
		profile_log_sampling();
	return rc;
}

int profile_write_window(const struct dump_window *window, char *path,
			 size_t len, const char **why)
{
	int rc;

	*why = NULL;
	if (!runtime_own_process() || atomic_load(&runtime.finished))
		return 0;
	window_writer.scale = 1.0;
	window_writer.ns_per_tick =
		config.cost == COST_NS ? clock_ns_per_tick : NULL;
	rc = delivering() ? deliver(false, WRITE_FLUSH, window, why) : 1;
	if (rc == 0)
		text_format(path, len, "trms run, which writes it in its "
				       "directory");
	else if (rc == 1)
		rc = write_here(false, WRITE_FLUSH, window, path, len, why);
	if (rc && !*why)
		*why = text_errno(rc < 0 ? -rc : EIO);
	return rc;
}
