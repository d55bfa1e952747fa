/*
 * test_tally.c - a process that recorded nothing, under trms run, says so
 * by a line appended to trms run's tally (no connection: connecting wakes
 * trms run, the dearest thing a short process does under it), and
 * connects as before where it cannot append; trms run counts both and
 * leaves no tally behind.
 *
 * The library's side is checked against a stand-in for trms run: an
 * abstract socket of the test's own and a tally file, named in
 * TRMS_RUN_SOCKET as trms run names them (src/output/run_protocol.h).
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "harness.h"
#include "scratch.h"
#include "suite_main.h"

#define TOKEN "0123456789abcdef0123456789abcdef"

struct stand_in {
	int listen_fd;
	char tally[400];
	char variable[600]; /* TRMS_RUN_SOCKET=... */
	char preload[4200]; /* LD_PRELOAD=... */
};

static void stand_in_open(struct stand_in *s, bool with_tally)
{
	char name[64];
	struct sockaddr_un addr;

	snprintf(name, sizeof(name), "trms-test.%d.%ld", (int)getpid(),
		 random());
	s->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	ck_assert_int_ge(s->listen_fd, 0);
	memset(&addr, 0, sizeof(addr));
	addr.sun_family = AF_UNIX;
	memcpy(addr.sun_path + 1, name, strlen(name));
	ck_assert_int_eq(bind(s->listen_fd, (struct sockaddr *)&addr,
			      (socklen_t)(offsetof(struct sockaddr_un,
						   sun_path) +
					  1 + strlen(name))),
			 0);
	ck_assert_int_eq(listen(s->listen_fd, 16), 0);
	snprintf(s->tally, sizeof(s->tally), "%s/tmp/%s.tally", scratch, name);
	if (with_tally) {
		int fd = open(s->tally, O_WRONLY | O_CREAT | O_EXCL, 0622);
		ck_assert_int_ge(fd, 0);
		close(fd);
	}
	snprintf(s->variable, sizeof(s->variable),
		 "TRMS_RUN_SOCKET=%s," TOKEN ",tally=%s", name, s->tally);
	snprintf(s->preload, sizeof(s->preload), "LD_PRELOAD=%s",
		 test_env("TRMS_LIB"));
}

/* Run /bin/true under the stand-in: its pid. */
static int run_true(struct stand_in *s, void (*prepare)(void))
{
	struct spawn_result b;
	char *argv[] = { "/bin/true", NULL };
	char *env[] = { s->preload, s->variable, NULL };

	start(&b, argv, scratch, env, prepare);
	int pid = (int)b.pid;
	ck_assert_int_eq(finish(&b, 10000), 0);
	spawn_free(&b);
	return pid;
}

/* The tally's text ("" if there is none). */
static void tally_text(const struct stand_in *s, char *out, size_t len)
{
	FILE *f = fopen(s->tally, "r");
	size_t n = f ? fread(out, 1, len - 1, f) : 0;

	out[n] = '\0';
	if (f)
		fclose(f);
}

/* The header of the one connection waiting, into @out; false if none. */
static bool take_connection(struct stand_in *s, char *out, size_t len)
{
	int fd = accept(s->listen_fd, NULL, NULL);

	if (fd < 0)
		return false;
	ssize_t n = read(fd, out, len - 1);
	out[n > 0 ? n : 0] = '\0';
	close(fd);
	return true;
}

static void stand_in_close(struct stand_in *s)
{
	close(s->listen_fd);
	unlink(s->tally);
}

/* Appended, with the token, the pid, the process's start and "last";
 * no connection. */
START_TEST(nothing_recorded_is_tallied_not_connected)
{
	struct stand_in s;
	char text[512], header[4096], expected[128];
	long pid;
	unsigned long long start_time;
	int last;

	stand_in_open(&s, true);
	int child = run_true(&s, NULL);
	tally_text(&s, text, sizeof(text));
	ck_assert_msg(sscanf(text, TOKEN " %ld %llu %d", &pid, &start_time,
			     &last) == 3,
		      "tally: %s", text);
	snprintf(expected, sizeof(expected), TOKEN " %d %llu 1\n", child,
		 start_time);
	ck_assert_str_eq(text, expected);
	ck_assert_msg(start_time > 0, "tally: %s", text);
	ck_assert_msg(!take_connection(&s, header, sizeof(header)),
		      "connected too: %s", header);
	stand_in_close(&s);
}
END_TEST

static void limit_file_size(void)
{
	struct rlimit limit = { 1 << 20, 1 << 20 };

	setrlimit(RLIMIT_FSIZE, &limit);
}

/* Where appending might raise SIGXFSZ (a file-size limit), or there is
 * no tally to append to, the process connects as before. */
START_TEST(connects_where_it_cannot_append)
{
	struct stand_in s;
	char text[512], header[4096];

	stand_in_open(&s, true);
	run_true(&s, limit_file_size);
	tally_text(&s, text, sizeof(text));
	ck_assert_str_eq(text, "");
	ck_assert(take_connection(&s, header, sizeof(header)));
	ck_assert_msg(strstr(header, "\nkind empty\n"), "header: %s", header);
	stand_in_close(&s);

	stand_in_open(&s, false);
	run_true(&s, NULL);
	ck_assert(access(s.tally, F_OK) != 0);
	ck_assert(take_connection(&s, header, sizeof(header)));
	ck_assert_msg(strstr(header, "\nkind empty\n"), "header: %s", header);
	stand_in_close(&s);
}
END_TEST

/* trms run counts the tallied processes (an exec'd image is the same
 * process) and removes its tally. */
START_TEST(trms_run_counts_the_tally)
{
	struct spawn_result b;

	start_run(&b, NULL, "--", "/bin/sh", "-c",
		  "/bin/true; /bin/true; exec /bin/true", NULL);
	ck_assert_int_eq(finish(&b, 20000), 0);
	ck_assert_msg(strstr(b.err, "3 processes, no profile: none recorded "
				    "anything"),
		      "stderr:\n%s", b.err);
	assert_tmp_empty();
	spawn_free(&b);
}
END_TEST

static double children_cpu_seconds(void)
{
	struct rusage u;

	getrusage(RUSAGE_CHILDREN, &u);
	return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
	       (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

/* After a connection (--all: /bin/true hands over its empty profile) trms
 * run rests, then waits on its listener again: through the second that
 * follows it uses next to no CPU (a rest that never ended would poll in a
 * loop for all of it). */
START_TEST(trms_run_idles_after_a_rest)
{
	struct spawn_result b;
	double before = children_cpu_seconds();

	start_run(&b, NULL, "--all", "--", "/bin/sh", "-c",
		  "/bin/true; sleep 1; /bin/true; sleep 1", NULL);
	ck_assert_int_eq(finish(&b, 20000), 0);
	double used = children_cpu_seconds() - before;
	ck_assert_msg(strstr(b.err, "5 processes, 5 profiles in"), "stderr:\n%s",
		      b.err);
	ck_assert_msg(used < 0.5, "trms run and its command used %.2f s of "
				  "CPU in 2 s of sleep",
		      used);
	spawn_free(&b);
}
END_TEST

void add_tally_tests(TCase *tc)
{
	SUITE_TESTS(tc, nothing_recorded_is_tallied_not_connected,
		    connects_where_it_cannot_append, trms_run_counts_the_tally,
		    trms_run_idles_after_a_rest);
}
