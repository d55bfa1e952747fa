/*
 * test_api.c - the public API in one thread, costs in events (the test
 * runs with TRMS_COST=events and TRMS_OUTPUT in a scratch directory).
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trms.h"

#include "output/output.h"
#include "profile_reader.h"
#include "runtime/thread.h"
#include "test_util.h"
#include "suite_main.h"

/* What the observer saw, for the test that is running. */
static struct {
	char region[64];
	struct activation a;
	unsigned count;
} seen[64];
static unsigned n_seen;

static void observe(struct trms_thread *t, const struct activation *a)
{
	(void)t;
	if (n_seen < 64) {
		snprintf(seen[n_seen].region, sizeof(seen[0].region), "%s",
			 region_name(a->region));
		seen[n_seen].a = *a;
	}
	n_seen++;
}

static void setup(void)
{
	n_seen = 0;
	runtime_observer = observe;
}

static const char *profile_path(void)
{
	static char path[4096];

	ck_assert_int_eq(
		output_expand(config.output, getpid(), path, sizeof(path)), 0);
	return path;
}

/* With the library linked in, the I/O hooks are live: Check writes to a
 * pipe at every ck_assert, which would be data leaving the test inside the
 * region.  So results inside measured regions are collected first and
 * checked after the regions end. */

START_TEST(begin_end_records_input)
{
	static char buf[100];
	int rc[5];

	rc[0] = trms_region_begin("parse");
	rc[1] = trms_read(buf, sizeof(buf));
	rc[2] = trms_write(buf, 8);
	rc[3] = trms_read(buf, 8);
	rc[4] = trms_region_end("parse");
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(rc[i], 0);
	ck_assert_uint_eq(n_seen, 1);
	ck_assert_str_eq(seen[0].region, "parse");
	/* 100 bytes: 25 or 26 cells of 4 depending on alignment. */
	uint64_t cells = ((uintptr_t)buf + 99) / 4 - (uintptr_t)buf / 4 + 1;
	ck_assert_uint_eq(seen[0].a.trms, cells);
	ck_assert_uint_eq(seen[0].a.rms, cells);
	ck_assert_uint_eq(seen[0].a.cost, 3);
}
END_TEST

START_TEST(mismatched_end_changes_nothing)
{
	ck_assert_int_eq(trms_region_begin("outer"), 0);
	ck_assert_int_eq(trms_region_begin("inner"), 0);
	ck_assert_int_eq(trms_region_end("outer"), -EINVAL);
	ck_assert_int_eq(trms_region_end("nonexistent"), -EINVAL);
	ck_assert_uint_eq(n_seen, 0);
	ck_assert_int_eq(trms_region_end("inner"), 0);
	ck_assert_int_eq(trms_region_end("outer"), 0);
	ck_assert_uint_eq(n_seen, 2);
	ck_assert_str_eq(seen[0].region, "inner");
	ck_assert_str_eq(seen[1].region, "outer");
	ck_assert_int_eq(trms_region_end("outer"), -EINVAL);
	ck_assert_int_eq(trms_region_end(NULL), -EINVAL);
}
END_TEST

START_TEST(end_null_closes_innermost)
{
	ck_assert_int_eq(trms_region_begin("a"), 0);
	ck_assert_int_eq(trms_region_begin("b"), 0);
	ck_assert_int_eq(trms_region_end(NULL), 0);
	ck_assert_int_eq(trms_region_end(NULL), 0);
	ck_assert_uint_eq(n_seen, 2);
	ck_assert_str_eq(seen[0].region, "b");
	ck_assert_str_eq(seen[1].region, "a");
}
END_TEST

START_TEST(bad_arguments)
{
	ck_assert_int_eq(trms_region_begin(NULL), -EINVAL);
	ck_assert_int_eq(trms_region_begin(""), -EINVAL);
	ck_assert_int_eq(trms_thread_name(NULL), -EINVAL);
	ck_assert_int_eq(trms_read(NULL, 4), -EINVAL);
	ck_assert_int_eq(trms_write(NULL, 4), -EINVAL);
	ck_assert_int_eq(trms_read(NULL, 0), 0);
	ck_assert_int_eq(trms_read((void *)(uintptr_t)0x7ffffffffff0, 64),
			 -EINVAL);
	ck_assert_int_eq(trms_read((void *)UINTPTR_MAX, 2), -EINVAL);
	char long_name[2000];
	memset(long_name, 'x', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	ck_assert_int_eq(trms_region_begin(long_name), -ENAMETOOLONG);
	ck_assert_uint_eq(n_seen, 0);
}
END_TEST

/* A name built in one reused buffer: each text is its own region. */
START_TEST(reused_buffer_names_told_apart)
{
	char buf[32];

	for (int round = 0; round < 3; round++) {
		strcpy(buf, "alpha");
		ck_assert_int_eq(trms_region_begin(buf), 0);
		strcpy(buf, "beta");
		ck_assert_int_eq(trms_region_begin(buf), 0);
		ck_assert_int_eq(trms_region_end(buf), 0);
		strcpy(buf, "alpha");
		ck_assert_int_eq(trms_region_end(buf), 0);
	}
	ck_assert_uint_eq(n_seen, 6);
	for (unsigned i = 0; i < 6; i += 2) {
		ck_assert_str_eq(seen[i].region, "beta");
		ck_assert_str_eq(seen[i + 1].region, "alpha");
	}
	/* And the same text at two addresses is one region. */
	char other[32] = "beta";
	ck_assert_int_eq(trms_region_begin(other), 0);
	ck_assert_int_eq(trms_region_end("beta"), 0);
	ck_assert_uint_eq(seen[6].a.region, seen[0].a.region);
}
END_TEST

/* Literals are recognised by address; buffers are checked by text. */
START_TEST(literal_names_trusted_by_address)
{
	char buf[16] = "lit";
	struct trms_thread *t;

	unsigned lit = name_cache_slot("lit"), stack = name_cache_slot(buf);

	/* Each checked right after its use: the two may share a slot (one
	 * time in NAME_CACHE_SLOTS, by where the stack happens to be). */
	ck_assert_int_eq(trms_region_begin("lit"), 0);
	ck_assert_int_eq(trms_region_end("lit"), 0);
	t = thread_self();
	ck_assert_ptr_eq(t->names.slot[lit].ptr, "lit");
	ck_assert(t->names.slot[lit].immutable);
	ck_assert_int_eq(trms_region_begin(buf), 0);
	ck_assert_int_eq(trms_region_end(buf), 0);
	ck_assert_ptr_eq(t->names.slot[stack].ptr, buf);
	ck_assert(!t->names.slot[stack].immutable);
	ck_assert_uint_eq(seen[0].a.region, seen[1].a.region);
}
END_TEST

static int scoped_function(int leave_early)
{
	TRMS_SCOPED_REGION("scoped");
	if (leave_early)
		return 1;
	trms_read(&leave_early, sizeof(leave_early));
	return 0;
}

START_TEST(scoped_forms_end_regions)
{
	int x = 0;

	TRMS_REGION("block")
	{
		trms_read(&x, sizeof(x));
	}
	/* break leaves the region's block (not the enclosing loop), and the
	 * region ends. */
	int iterations = 0;
	for (int i = 0; i < 3; i++) {
		TRMS_REGION("loop")
		{
			if (i == 1)
				break;
			trms_read(&x, sizeof(x));
		}
		iterations++;
	}
	ck_assert_int_eq(iterations, 3);
	scoped_function(1);
	scoped_function(0);
	ck_assert_uint_eq(n_seen, 6);
	ck_assert_str_eq(seen[0].region, "block");
	ck_assert_uint_eq(seen[0].a.trms, 1);
	ck_assert_str_eq(seen[1].region, "loop");
	ck_assert_uint_eq(seen[1].a.trms, 1);
	ck_assert_str_eq(seen[2].region, "loop");
	ck_assert_uint_eq(seen[2].a.trms, 0);
	ck_assert_str_eq(seen[3].region, "loop");
	ck_assert_str_eq(seen[4].region, "scoped");
	ck_assert_str_eq(seen[5].region, "scoped");
	ck_assert_uint_eq(seen[5].a.trms, 1);
	/* Nothing is left open. */
	ck_assert_int_eq(trms_region_end(NULL), -EINVAL);
}
END_TEST

START_TEST(pause_drops_overlapping_activations)
{
	int x = 0, rc[10];

	rc[0] = trms_region_begin("spans");
	rc[1] = trms_disable();
	rc[2] = trms_region_begin("paused");
	rc[3] = trms_read(&x, sizeof(x));
	rc[4] = trms_region_end("paused");
	rc[5] = trms_enable();
	rc[6] = trms_region_end("spans");
	ck_assert_uint_eq(n_seen, 0);
	rc[7] = trms_region_begin("after");
	rc[8] = trms_read(&x, sizeof(x));
	rc[9] = trms_region_end("after");
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(rc[i], 0);
	ck_assert_uint_eq(n_seen, 1);
	ck_assert_str_eq(seen[0].region, "after");
	ck_assert_uint_eq(seen[0].a.trms, 1);
	ck_assert_int_eq(trms_enable(), 0);
}
END_TEST

START_TEST(reentrant_call_is_refused)
{
	struct trms_thread *t = thread_self();
	t->busy = true;
	ck_assert_int_eq(trms_region_begin("x"), -EBUSY);
	ck_assert_int_eq(trms_read(&n_seen, 4), -EBUSY);
	t->busy = false;
	ck_assert_int_eq(trms_region_begin("x"), 0);
	ck_assert_int_eq(trms_region_end("x"), 0);
}
END_TEST

START_TEST(version_matches_header)
{
	char expected[32];

	snprintf(expected, sizeof(expected), "%d.%d.%d", TRMS_VERSION_MAJOR,
		 TRMS_VERSION_MINOR, TRMS_VERSION_PATCH);
	ck_assert_str_eq(trms_version(), expected);
}
END_TEST

static const struct profile_tuple *find_tuple(const struct profile_doc *doc,
					      const char *region,
					      enum metric metric, uint64_t n)
{
	for (size_t i = 0; i < doc->n_tuples; i++) {
		const struct profile_tuple *t = &doc->tuples[i];
		if (!strcmp(profile_region_name(doc, t->data.region), region) &&
		    t->data.metric == metric && t->data.n == n)
			return t;
	}
	return NULL;
}

START_TEST(flush_writes_profile)
{
	static char buf[64] __attribute__((aligned(64)));
	struct profile_doc doc;
	char err[512];

	int rc = trms_thread_name("main thread");

	for (int i = 0; i < 3; i++) {
		rc |= trms_region_begin("flushed");
		rc |= trms_read(buf, sizeof(buf));
		rc |= trms_region_end("flushed");
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(trms_flush(), 0);
	ck_assert_msg(profile_read(profile_path(), &doc, err, sizeof(err)) == 0,
		      "%s", err);
	const struct profile_tuple *t =
		find_tuple(&doc, "flushed", METRIC_TRMS, 16);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->data.count, 3);
	ck_assert_uint_eq(t->data.min, 1);
	ck_assert_uint_eq(t->data.sum, 3);
	ck_assert_ptr_nonnull(find_tuple(&doc, "flushed", METRIC_RMS, 16));
	ck_assert_str_eq(profile_thread(&doc, t->thread)->name, "main thread");
	ck_assert_str_eq(profile_meta(&doc, "cost"), "events");
	ck_assert_str_eq(profile_meta(&doc, "granularity"), "4");
	char pid[16];
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	ck_assert_str_eq(profile_meta(&doc, "pid"), pid);
	struct stat st;
	ck_assert_int_eq(stat(profile_path(), &st), 0);
	ck_assert_int_eq(st.st_mode & 0002, 0);
	profile_doc_free(&doc);
	unlink(profile_path());
}
END_TEST

/* A symbolic link planted where the profile goes is replaced, not
 * followed. */
START_TEST(flush_does_not_follow_symlink)
{
	char target[4200];
	const char *path = profile_path();
	struct stat st;

	snprintf(target, sizeof(target), "%s.victim", path);
	int fd = open(target, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "keep", 4), 4);
	close(fd);
	unlink(path);
	ck_assert_int_eq(symlink(target, path), 0);
	ck_assert_int_eq(trms_region_begin("r"), 0);
	ck_assert_int_eq(trms_region_end("r"), 0);
	ck_assert_int_eq(trms_flush(), 0);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_int_eq(stat(target, &st), 0);
	ck_assert_int_eq(st.st_size, 4);
	unlink(path);
	unlink(target);
}
END_TEST

/* At exit the profile is written, with regions still open counted as
 * ended then. */
START_TEST(exit_writes_profile)
{
	static char buf[40];
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		trms_region_begin("until_exit");
		trms_read(buf, sizeof(buf));
		exit(0);
	}
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	char path[4096];
	struct profile_doc doc;
	char err[512];
	ck_assert_int_eq(output_expand(config.output, pid, path, sizeof(path)),
			 0);
	ck_assert_msg(profile_read(path, &doc, err, sizeof(err)) == 0, "%s",
		      err);
	uint64_t cells = ((uintptr_t)buf + 39) / 4 - (uintptr_t)buf / 4 + 1;
	const struct profile_tuple *t =
		find_tuple(&doc, "until_exit", METRIC_TRMS, cells);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->data.count, 1);
	profile_doc_free(&doc);
	unlink(path);
}
END_TEST

/* Run @fn with stderr captured; returns what was printed. */
static char *capture_stderr(void (*fn)(void))
{
	static char text[8192];
	int fds[2], saved = dup(2);

	ck_assert_int_eq(pipe(fds), 0);
	dup2(fds[1], 2);
	close(fds[1]);
	fn();
	dup2(saved, 2);
	close(saved);
	ssize_t n = read(fds[0], text, sizeof(text) - 1);
	close(fds[0]);
	text[n > 0 ? n : 0] = '\0';
	return text;
}

static int bad_results[32];

static void *end_on_other_thread(void *arg)
{
	bad_results[20] = trms_region_end(arg);
	return NULL;
}

static void bad_calls(void)
{
	static char buf[64] __attribute__((aligned(64)));
	char long_name[2000];
	pthread_t other;

	memset(long_name, 'n', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	bad_results[0] = trms_region_begin(NULL);
	bad_results[1] = trms_region_begin("");
	bad_results[2] = trms_region_begin(long_name);
	bad_results[3] = trms_region_end(NULL);
	bad_results[4] = trms_region_end("never begun");
	bad_results[5] = trms_read(NULL, 4);
	bad_results[6] = trms_write(NULL, 4);
	bad_results[7] = trms_read(buf, SIZE_MAX);
	bad_results[8] = trms_write(buf, SIZE_MAX);
	bad_results[9] = trms_read(buf, 0);
	/* Addresses that are not mapped: only their numbers matter. */
	bad_results[10] = trms_read((void *)(uintptr_t)0x1000, 64);
	bad_results[11] = trms_write((void *)(uintptr_t)0x7ff000000000, 64);
	bad_results[12] = trms_read((void *)UINTPTR_MAX, 1);
	bad_results[13] = trms_thread_name(NULL);
	bad_results[14] = trms_thread_name("");
	bad_results[15] = trms_thread_name(long_name);
	bad_results[16] = trms_region_begin("mine");
	pthread_create(&other, NULL, end_on_other_thread, "mine");
	pthread_join(other, NULL);
	bad_results[17] = trms_region_end("not mine");
	bad_results[18] = trms_region_end("mine");
	/* Afterwards everything works as before. */
	bad_results[19] = trms_region_begin("after");
	trms_read(buf, sizeof(buf));
	trms_region_end("after");
}

START_TEST(bad_input_everywhere)
{
	char *err = capture_stderr(bad_calls);
	static const int expected[] = {
		-EINVAL, -EINVAL, -ENAMETOOLONG, -EINVAL, -EINVAL,
		-EINVAL, -EINVAL, -EINVAL, -EINVAL, 0,
		0, 0, -EINVAL, -EINVAL, -EINVAL,
		0, 0, -EINVAL, 0, 0,
		-EINVAL,
	};

	for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++)
		ck_assert_msg(bad_results[i] == expected[i],
			      "call %zu returned %d, expected %d", i,
			      bad_results[i], expected[i]);
	ck_assert_msg(strstr(err, "trms: usage error: trms_region_begin: NULL"),
		      "stderr: %s", err);
	ck_assert(strstr(err, "no region is open on this thread") != NULL);
	ck_assert(strstr(err, "not inside the user address space") != NULL);
	ck_assert(strstr(err, "the innermost open region is \"mine\"") != NULL);
	/* One diagnostic per mistake, not one per call forever. */
	ck_assert_uint_lt(strlen(err), 4000);
	ck_assert_uint_eq(n_seen, 2);
	ck_assert_str_eq(seen[0].region, "mine");
	ck_assert_str_eq(seen[1].region, "after");
	ck_assert_uint_eq(seen[1].a.trms, 16);
}
END_TEST

/* Page faults taken by the calling thread so far (the kernel's count of
 * traps: pages that a system call maps, as MADV_POPULATE_WRITE does, are
 * not in it, where getrusage counts them too); -1 if it cannot be had. */
static long long faults_of_thread(int fd)
{
	long long n;

	return fd >= 0 && read(fd, &n, sizeof(n)) == sizeof(n) ? n : -1;
}

/*
 * A large read of memory never read before maps its shadow at once
 * (vm_populate), not page fault by page fault: 4 MiB read are 1024 pages
 * of shadow at K = 4 (4096 at K = 1), each a fault otherwise.  Where the
 * kernel cannot populate (before Linux 5.14) or does not count faults
 * for us, the check is skipped, and says so; under AddressSanitizer too,
 * whose own memory faults in on the thread in numbers that depend on how
 * the test is started (6,900 under meson, under 256 from a shell).
 */
START_TEST(large_read_maps_shadow_at_once)
{
	enum { BYTES = 4 << 20 };
	static char big[BYTES];
	struct perf_event_attr pe = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(pe),
		.config = PERF_COUNT_SW_PAGE_FAULTS,
	};
	int fd = (int)syscall(SYS_perf_event_open, &pe, 0, -1, -1, 0);
	void *probe = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(probe, MAP_FAILED);
	bool populates = madvise(probe, 8192, 23 /* MADV_POPULATE_WRITE */) ==
			 0;
	munmap(probe, 8192);

	memset(big, 1, sizeof(big)); /* the data's own faults first */
	trms_region_begin("big");
	/* The read's faults only: a sample meanwhile (its handler may open
	 * libunwind, the first time, in a run slowed down by Valgrind)
	 * waits until after. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	long long before = faults_of_thread(fd);
	ck_assert_int_eq(trms_read(big, sizeof(big)), 0);
	long long faults = faults_of_thread(fd) - before;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	trms_region_end("big");
	if (fd >= 0)
		close(fd);
#if defined(__SANITIZE_ADDRESS__)
	const bool sanitized = true;
#else
	const bool sanitized = false;
#endif
	/* Valgrind preloads its own objects, and its faults are counted. */
	const char *preload = getenv("LD_PRELOAD");
	const bool valgrind = preload && strstr(preload, "vgpreload");
	if (!populates || before < 0 || sanitized || valgrind) {
		printf("not checked: %s\n",
		       !populates    ? "no MADV_POPULATE_WRITE here"
		       : before < 0 ? "no page-fault counter"
		       : sanitized  ? "AddressSanitizer's faults are counted too"
				    : "Valgrind's faults are counted too");
		return;
	}
	ck_assert_msg(faults < 256,
		      "reading 4 MiB took %lld page faults in the library",
		      faults);
}
END_TEST

static Suite *api_suite(void)
{
	Suite *s = suite_create("api");
	TCase *tc = tcase_create("api");

	tcase_add_checked_fixture(tc, setup, NULL);
	SUITE_TESTS(tc, begin_end_records_input, mismatched_end_changes_nothing,
		    end_null_closes_innermost, bad_arguments,
		    reused_buffer_names_told_apart,
		    literal_names_trusted_by_address, scoped_forms_end_regions,
		    pause_drops_overlapping_activations,
		    reentrant_call_is_refused, version_matches_header,
		    flush_writes_profile, flush_does_not_follow_symlink,
		    exit_writes_profile, bad_input_everywhere,
		    large_read_maps_shadow_at_once);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(api_suite());
}
