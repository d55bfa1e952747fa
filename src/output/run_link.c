/*
 * run_link.c - handing the profile to `trms run` (see run_link.h and
 * run_protocol.h).
 *
 * The socket's calls go straight to the kernel: connect, sendmsg, poll and
 * recv are interposed by the library itself (and would be recorded as the
 * program's I/O).  The socket is non-blocking and every wait is bounded:
 * a trms run that is stopped or gone costs the process a few seconds at
 * most, never its exit.
 */
#define _GNU_SOURCE
#include "output/run_link.h"
#include "format/profile_format.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "output/output.h"
#include "output/run_protocol.h"
#include "base/sys.h"
#include "runtime/thread.h"
#include "base/text.h"

/* How long a step may wait for trms run: a connection (its queue full),
 * room to send. */
#define WAIT_MS 5000

static struct {
	bool active;
	bool keep_empty;
	char name[RUN_NAME_MAX + 1];
	char token[RUN_TOKEN_HEX + 1];
	char tally[RUN_TALLY_PATH_MAX + 1]; /* "": none */
} session;

/* What follows the token: nothing, ",all" or ",tally=PATH". */
static bool read_flags(const char *flags)
{
	size_t flag_len = strlen(RUN_TALLY_FLAG);

	if (!*flags)
		return true;
	if (!strcmp(flags, ",all")) {
		session.keep_empty = true;
		return true;
	}
	if (strncmp(flags, RUN_TALLY_FLAG, flag_len) ||
	    flags[flag_len] != '/' ||
	    strlen(flags + flag_len) > RUN_TALLY_PATH_MAX)
		return false;
	strcpy(session.tally, flags + flag_len);
	return true;
}

void run_link_init(void)
{
	const char *value = config.run_socket;
	const char *comma = strchr(value, ',');
	size_t name_len = comma ? (size_t)(comma - value) : 0;

	memset(&session, 0, sizeof(session));
	if (!*value)
		return;
	const char *token = comma ? comma + 1 : "";
	const char *flags = strchr(token, ',');
	size_t token_len = flags ? (size_t)(flags - token) : strlen(token);
	if (!name_len || name_len > RUN_NAME_MAX || token_len != RUN_TOKEN_HEX ||
	    !read_flags(flags ? flags : "")) {
		/* (Its value holds a secret: not repeated.) */
		log_client("%s is not what trms run sets; ignored",
			   RUN_SOCKET_VARIABLE);
		memset(&session, 0, sizeof(session));
		return;
	}
	memcpy(session.name, value, name_len);
	memcpy(session.token, token, token_len);
	session.active = true;
}

bool run_link_active(void)
{
	return session.active;
}

bool run_link_keeps_empty(void)
{
	return session.keep_empty;
}

static int sys_ppoll_ms(struct pollfd *p, int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	return (int)syscall(SYS_ppoll, p, 1, &ts, NULL, (size_t)8);
}

/* Wait until @fd is ready for @events; -ETIMEDOUT after WAIT_MS. */
static int wait_for(int fd, short events)
{
	struct pollfd p = { fd, events, 0 };

	for (;;) {
		int r = sys_ppoll_ms(&p, WAIT_MS);
		if (r > 0)
			return 0;
		if (r == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
	}
}

static void pause_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000 };

	syscall(SYS_nanosleep, &ts, NULL);
}

static int connect_now(void)
{
	struct sockaddr_un addr;
	size_t len = strlen(session.name);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return -errno;
	memset(&addr, 0, sizeof(addr));
	addr.sun_family = AF_UNIX;
	memcpy(addr.sun_path + 1, session.name, len);
	socklen_t addr_len =
		(socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len);
	/* A full queue answers EAGAIN at once: try again for a while. */
	for (int waited = 0;; waited++) {
		if (syscall(SYS_connect, fd, &addr, addr_len) == 0)
			return fd;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN || waited >= WAIT_MS) {
			int rc = -errno;
			close(fd);
			return rc;
		}
		pause_ms(1);
	}
}

static int send_all(int fd, const struct iovec *iov, int n)
{
	struct iovec v[4];
	struct msghdr msg;

	memcpy(v, iov, (size_t)n * sizeof(*v));
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = v;
	msg.msg_iovlen = (size_t)n;
	while (msg.msg_iovlen) {
		ssize_t r = syscall(SYS_sendmsg, fd, &msg,
				    MSG_NOSIGNAL | MSG_DONTWAIT);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				return -errno;
			int rc = wait_for(fd, POLLOUT);
			if (rc)
				return rc;
			continue;
		}
		size_t done = (size_t)r;
		while (msg.msg_iovlen && done >= msg.msg_iov->iov_len) {
			done -= msg.msg_iov->iov_len;
			msg.msg_iov++;
			msg.msg_iovlen--;
		}
		if (msg.msg_iovlen) {
			msg.msg_iov->iov_base = (char *)msg.msg_iov->iov_base + done;
			msg.msg_iov->iov_len -= done;
		}
	}
	return 0;
}

/* "key value\n" into @out at *@len, the value escaped. */
static void put_line(char *out, size_t *len, const char *key,
		     const char *value)
{
	size_t n = *len;

	for (const char *k = key; *k && n + 2 < RUN_HEADER_MAX; k++)
		out[n++] = *k;
	out[n++] = ' ';
	/* Escaped as names are in a profile (profile_format.h). */
	for (const unsigned char *p = (const unsigned char *)value;
	     *p && n + 5 < RUN_HEADER_MAX; p++)
		n += profile_escape_byte(*p, out + n);
	out[n++] = '\n';
	*len = n;
}

static void put_number(char *out, size_t *len, const char *key, uint64_t v)
{
	char text[32];

	text_format(text, sizeof(text), "%llu", (unsigned long long)v);
	put_line(out, len, key, text);
}

static const char *kind_name(enum run_kind kind)
{
	static const char *const names[] = { "profile", "empty", "written",
					     "failed" };

	return names[kind];
}

static int send_header(int fd, const struct run_message *m)
{
	char header[RUN_HEADER_MAX];
	size_t len = 0;
	char version[16];

	text_format(version, sizeof(version), "%d", RUN_PROTOCOL_VERSION);
	put_line(header, &len, "trms-run", version);
	put_line(header, &len, "token", session.token);
	put_line(header, &len, "kind", kind_name(m->kind));
	put_line(header, &len, "last", m->last ? "1" : "0");
	put_number(header, &len, "pid", (uint64_t)getpid());
	put_number(header, &len, "process_start", output_process_start());
	put_number(header, &len, "image", runtime.start_realtime_ns);
	put_line(header, &len, "program", output_program_name());
	if (m->window)
		put_number(header, &len, "window", m->window);
	if (m->path)
		put_line(header, &len, "path", m->path);
	if (m->kind == RUN_FAILED) {
		put_number(header, &len, "error", (uint64_t)m->error);
		put_line(header, &len, "reason",
			 m->reason ? m->reason : text_errno(m->error));
	}
	header[len++] = '\n';
	struct iovec v = { header, len };
	return send_all(fd, &v, 1);
}

int run_link_open(struct run_delivery *d, const struct run_message *m)
{
	d->fd = -1;
	if (!session.active)
		return -ENOTCONN;
	int fd = connect_now();
	if (fd < 0)
		return fd;
	int rc = send_header(fd, m);
	if (rc) {
		close(fd);
		return rc;
	}
	d->fd = fd;
	return 0;
}

static int send_chunk(int fd, const void *buf, size_t n)
{
	unsigned char length[4] = { (unsigned char)n, (unsigned char)(n >> 8),
				    (unsigned char)(n >> 16),
				    (unsigned char)(n >> 24) };
	struct iovec v[2] = { { length, 4 }, { (void *)buf, n } };

	return send_all(fd, v, n ? 2 : 1);
}

int run_link_send(void *ctx, const void *buf, size_t n)
{
	struct run_delivery *d = ctx;
	const char *p = buf;

	while (n) {
		size_t take = n < RUN_CHUNK_MAX ? n : RUN_CHUNK_MAX;
		int rc = send_chunk(d->fd, p, take);
		if (rc)
			return rc;
		p += take;
		n -= take;
	}
	return 0;
}

int run_link_finish(struct run_delivery *d)
{
	return send_chunk(d->fd, NULL, 0);
}

void run_link_close(struct run_delivery *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

/* @m (a process that recorded nothing) as a line of trms run's tally.
 * @return 0, or -errno if it must connect instead. */
static int append_to_tally(const struct run_message *m)
{
	struct rlimit limit;
	char line[RUN_TOKEN_HEX + 80];

	/* A file-size limit might be passed (SIGXFSZ): rare enough to leave
	 * to the socket. */
	if (getrlimit(RLIMIT_FSIZE, &limit) != 0 ||
	    limit.rlim_cur != RLIM_INFINITY)
		return -EFBIG;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, session.tally,
			      O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK |
				      O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int len = text_format(line, sizeof(line), "%s %ld %llu %d\n",
			      session.token, (long)getpid(),
			      output_process_start(), m->last ? 1 : 0);
	ssize_t n = sys_write(fd, line, (size_t)len);
	int rc = n == len ? 0 : n < 0 ? -errno : -EIO;
	syscall(SYS_close, fd);
	return rc;
}

void run_link_note(const struct run_message *m)
{
	struct run_delivery d;

	if (m->kind == RUN_EMPTY && session.tally[0] &&
	    append_to_tally(m) == 0)
		return;
	if (run_link_open(&d, m) == 0)
		run_link_close(&d);
}
