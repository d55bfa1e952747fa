/*
 * profile_dump.c - writing the process's profile: every thread's tuples,
 * the region names and what describes the run.
 */
#define _GNU_SOURCE
#include "runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "output.h"
#include "profile_writer.h"
#include "real.h"
#include "run_link.h"
#include "sys.h"

/* Written under flush_lock; too big for a thread's stack to be sure. */
static struct profile_writer writer;

struct dump_thread {
	struct profile_writer *w;
	uint32_t ordinal;
};

static void dump_tuple(void *ctx, const struct tuple_data *tuple)
{
	struct dump_thread *d = ctx;

	profile_writer_tuple(d->w, d->ordinal, tuple);
}

/* The command line, each argument escaped on its own, spaces between. */
static void write_command(struct profile_writer *w)
{
	char buf[4096];
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? sys_read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	/* Arguments are separated by NULs: escape each on its own and put
	 * one blank between them, so the reader gets one field per
	 * argument. */
	char joined[3 * sizeof(buf)];
	size_t len = 0;
	static const char hex[] = "0123456789ABCDEF";
	for (ssize_t i = 0; i < n && len + 4 < sizeof(joined); i++) {
		unsigned char c = (unsigned char)buf[i];
		if (c == '\0') {
			if (i + 1 < n)
				joined[len++] = ' ';
		} else if (c <= ' ' || c == '%' || c == 0x7f) {
			joined[len++] = '%';
			joined[len++] = hex[c >> 4];
			joined[len++] = hex[c & 15];
		} else {
			joined[len++] = (char)c;
		}
	}
	joined[len] = '\0';
	profile_writer_meta_raw(w, "command", joined);
}

static void write_meta(struct profile_writer *w)
{
	struct engine *e = &runtime.engine;

	profile_writer_meta(w, "program", output_program_name());
	write_command(w);
	profile_writer_meta_u64(w, "pid", (uint64_t)getpid());
	profile_writer_meta_u64(w, "ppid", (uint64_t)getppid());
	profile_writer_meta_u64(w, "process_start", output_process_start());
	profile_writer_meta_u64(w, "start_ns", runtime.start_realtime_ns);
	profile_writer_meta_u64(w, "end_ns", runtime_realtime_ns());
	profile_writer_meta(w, "cost", config_cost_name(config.cost));
	if (config.cost == COST_NS)
		profile_writer_meta(w, "clock", clock_source());
	profile_writer_meta_u64(w, "granularity", e->granularity);
	profile_writer_meta_u64(w, "stamp_bits", e->stamps.bits);
	profile_writer_meta_u64(w, "shadow_bytes", engine_shadow_bytes(e));
	profile_writer_meta_u64(w, "renumbers", engine_renumber_count(e));
	profile_writer_meta(w, "library", TRMS_VERSION_TEXT);
}

/* What TRMS_VERBOSE=1 says of sampling at exit. */
static void log_sampling_summary(void)
{
	struct sampler_totals s;
	uint64_t dropped = 0;

	if (log_verbosity < 1 || !sampler_active())
		return;
	pthread_mutex_lock(&runtime.lock);
	sampler_totals(&s, clock_ns_per_tick());
	pthread_mutex_unlock(&runtime.lock);
	for (int i = 0; i < SAMPLE_DROPS; i++)
		dropped += s.dropped[i];
	log_info("%llu samples at %.0f Hz of %s time (asked %u Hz; %llu "
		 "periods caught late, in the next sample), %llu "
		 "dropped (in library %llu, in loader %llu, unwinding %llu, "
		 "memory %llu), %.3f ms in the handler",
		 (unsigned long long)s.samples,
		 s.cpu_ns ? (double)s.samples * 1e9 / (double)s.cpu_ns : 0.0,
		 s.clock, s.hz, (unsigned long long)s.overrun,
		 (unsigned long long)dropped,
		 (unsigned long long)s.dropped[DROP_IN_LIBRARY],
		 (unsigned long long)s.dropped[DROP_IN_LOADER],
		 (unsigned long long)s.dropped[DROP_UNWIND],
		 (unsigned long long)s.dropped[DROP_NO_MEMORY],
		 (double)s.handler_ns / 1e6);
}

static void write_threads(struct profile_writer *w, size_t *skipped,
			  uint64_t *dropped)
{
	struct trms_thread *t;

	cds_list_for_each_entry(t, &runtime.threads, link) {
		struct thread_info info = {
			.ordinal = t->ordinal,
			.name = t->name,
			.has_creator = t->has_creator,
			.creator = t->creator,
			.context = t->context,
			.context_depth = t->context_depth,
			.in_bytes = __atomic_load_n(&t->in_bytes,
						    __ATOMIC_RELAXED),
			.in_calls = __atomic_load_n(&t->in_calls,
						    __ATOMIC_RELAXED),
			.out_bytes = __atomic_load_n(&t->out_bytes,
						     __ATOMIC_RELAXED),
			.out_calls = __atomic_load_n(&t->out_calls,
						     __ATOMIC_RELAXED),
			.sampled = sampler_active(),
			.samples = cct_load(&t->sampler.samples),
			.cpu_ns = sampler_thread_cpu_ns(&t->sampler),
		};
		profile_writer_thread(w, &info);
	}
	cds_list_for_each_entry(t, &runtime.threads, link) {
		struct dump_thread d = { w, t->ordinal };
		if (profile_for_each_tuple(&t->profile, dump_tuple, &d,
					   skipped))
			w->error = ENOMEM;
		*dropped += __atomic_load_n(&t->profile.dropped,
					    __ATOMIC_RELAXED);
	}
}

/* The thread holding flush_lock (0: none): an abrupt write on that very
 * thread interrupted it, and waiting would be for ever. */
static atomic_int flush_owner;

/* How long an abrupt write waits for another thread's write to end, and
 * for the runtime lock (held only briefly: a thread starting or ending,
 * or the owner was interrupted). */
#define ABRUPT_FLUSH_WAIT_NS 2000000000ull
#define ABRUPT_LOCK_WAIT_NS 20000000ull

/* Take @m; in an abrupt write (a signal handler may have interrupted the
 * lock's owner, perhaps in this very thread) only try for a while. */
static bool take(pthread_mutex_t *m, enum write_reason reason)
{
	bool flush = m == &runtime.flush_lock;

	if (reason != WRITE_ABRUPT) {
		pthread_mutex_lock(m);
		return true;
	}
	uint64_t give_up = clock_monotonic_ns() +
			   (flush ? ABRUPT_FLUSH_WAIT_NS : ABRUPT_LOCK_WAIT_NS);
	for (int i = 0;; i++) {
		if (pthread_mutex_trylock(m) == 0)
			return true;
		if (flush && atomic_load(&flush_owner) == gettid())
			return false;
		if (clock_monotonic_ns() > give_up)
			return false;
		if (i < 100) {
			sched_yield();
		} else {
			struct timespec ms = { 0, 1000000 };
			syscall(SYS_nanosleep, &ms, NULL);
		}
	}
}

static bool take_flush_lock(enum write_reason reason)
{
	if (!take(&runtime.flush_lock, reason))
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

/* Whether the process recorded anything at all: a tuple, a sample, data
 * through a hooked call (when in doubt, yes). */
static bool recorded_something(enum write_reason reason)
{
	struct trms_thread *t;
	bool any = false;

	if (!take(&runtime.lock, reason))
		return true;
	cds_list_for_each_entry(t, &runtime.threads, link) {
		if (__atomic_load_n(&t->profile.used, __ATOMIC_RELAXED) ||
		    __atomic_load_n(&t->in_calls, __ATOMIC_RELAXED) ||
		    __atomic_load_n(&t->out_calls, __ATOMIC_RELAXED) ||
		    cct_load(&t->sampler.samples)) {
			any = true;
			break;
		}
	}
	pthread_mutex_unlock(&runtime.lock);
	return any;
}

/* Everything after the header line.  @return 0 or -errno. */
static int write_body(struct profile_writer *w, enum write_reason reason)
{
	size_t skipped = 0;
	uint64_t dropped = 0;

	write_meta(w);
	for (uint32_t id = 0; id < region_count(); id++)
		profile_writer_region(w, id, region_name(id));
	if (!take(&runtime.lock, reason))
		return -EBUSY;
	write_threads(w, &skipped, &dropped);
	/* Names are looked up in the objects' files: not from a signal
	 * handler or _exit, where trms report does it instead. */
	sample_dump(w, reason != WRITE_ABRUPT);
	pthread_mutex_unlock(&runtime.lock);
	profile_writer_meta_u64(w, "tuples_skipped", skipped);
	profile_writer_meta_u64(w, "tuples_dropped", dropped);
	return 0;
}

/* Write the profile file at @path.  @return 0 or -errno, with words for
 * it in *@why. */
static int write_file(const char *path, enum write_reason reason,
		      const char **why)
{
	struct profile_writer *w = &writer;
	int rc = profile_writer_open(w, path);

	if (!rc) {
		rc = write_body(w, reason);
		if (rc)
			profile_writer_abort(w);
		else
			rc = profile_writer_commit(w);
	}
	*why = profile_file_error(&w->file, rc);
	return rc;
}

/* Hand the profile to trms run.  @return 0, -errno (*@why: the
 * library's trouble), or 1 if trms run could not be reached or the
 * connection broke: nothing was kept. */
static int deliver(bool last, enum write_reason reason, const char **why)
{
	struct profile_writer *w = &writer;
	struct run_message m = { .kind = RUN_PROFILE, .last = last };
	struct run_delivery d;

	if (run_link_open(&d, &m))
		return 1;
	profile_writer_start(w, run_link_send, &d);
	int rc = write_body(w, reason);
	if (rc) {
		/* Cut short: trms run keeps nothing of it. */
		run_link_close(&d);
		*why = "the library's state was in use by an interrupted "
		       "thread";
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

void runtime_exit_begin(void)
{
	atomic_store(&exit_phase, 1);
}

void runtime_exit_end(void)
{
	atomic_store(&exit_written_ns, clock_monotonic_ns());
	atomic_store(&exit_phase, 2);
}

bool runtime_exiting(void)
{
	int phase = atomic_load(&exit_phase);

	return phase == 1 ||
	       (phase == 2 && clock_monotonic_ns() <
				      atomic_load(&exit_written_ns) +
					      EXIT_GRACE_NS);
}

/* The profile of a process that recorded nothing: under trms run, a
 * word to it instead (unless it asked for every profile). */
static bool skip_empty(bool last, enum write_reason reason)
{
	if (!run_link_active() || run_link_keeps_empty() ||
	    recorded_something(reason))
		return false;
	struct run_message m = { .kind = RUN_EMPTY, .last = last };
	run_link_note(&m);
	return true;
}

/* Write the profile here (the template's directory depends on the
 * process, or trms run cannot be reached: gone, another network
 * namespace, a sandbox), and tell trms run if there is one. */
static int write_here(bool last, enum write_reason reason, char *path,
		      size_t len, const char **why)
{
	int rc = output_path(config.output, path, len);

	if (rc)
		*why = strerror(-rc);
	else
		rc = write_file(path, reason, why);
	if (run_link_active()) {
		struct run_message m = {
			.kind = rc ? RUN_FAILED : RUN_WRITTEN,
			.last = last,
			.path = path,
			.error = -rc,
			.reason = *why,
		};
		run_link_note(&m);
	}
	return rc;
}

int runtime_write_profile(enum write_reason reason)
{
	bool last = reason == WRITE_EXIT || reason == WRITE_ABRUPT;
	char path[CONFIG_PATH_MAX] = "";
	const char *why = NULL;
	bool empty = false, handed = false;
	sigset_t saved;
	int rc;

	if (!runtime_own_process())
		return 0;
	block_signals(&saved);
	if (!take_flush_lock(reason)) {
		/* Whoever holds the profile will not finish it: nothing of
		 * it may stay behind. */
		profile_file_discard(&writer.file);
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
		/* The last write: the calling thread's open regions end now
		 * (unless it was interrupted inside the library, whose state
		 * it was changing). */
		struct trms_thread *me = thread_current;
		if (me && !me->busy) {
			me->busy = true;
			thread_close_all(me);
			me->busy = false;
		}
		atomic_store(&runtime.finished, true);
	}
	empty = skip_empty(last, reason);
	if (empty) {
		rc = 0;
	} else {
		writer.scale =
			config.cost == COST_NS ? clock_ns_per_tick() : 1.0;
		rc = delivering() ? deliver(last, reason, &why) : 1;
		handed = rc == 0;
		if (handed)
			strcpy(path, "trms run, which writes it in its "
				     "directory");
		else if (rc == 1)
			rc = write_here(last, reason, path, sizeof(path), &why);
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
			 "profile");
	else if (last)
		log_info("profile %s %s (shadow memory %zu KiB)",
			 handed ? "handed to" : "written to", path,
			 engine_shadow_bytes(&runtime.engine) >> 10);
	if (!rc && last)
		log_sampling_summary();
	return rc;
}
