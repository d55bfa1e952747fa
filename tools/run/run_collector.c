/*
 * run_collector.c - `trms run`'s end of the processes' socket (see
 * run_collector.h and src/output/run_protocol.h): the listening socket, the
 * connections, the outcomes; what each connection says is read in
 * run_message.c.
 */
#define _GNU_SOURCE
#include "run_collector_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "xalloc.h"

static void to_hex(const unsigned char *bytes, size_t n, char *out)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = hex[bytes[i] >> 4];
		out[2 * i + 1] = hex[bytes[i] & 15];
	}
	out[2 * n] = '\0';
}

static int random_hex(char *out, size_t bytes)
{
	unsigned char raw[32];

	if (bytes > sizeof(raw))
		return -EINVAL;
	if (getrandom(raw, bytes, 0) != (ssize_t)bytes)
		return errno ? -errno : -EIO;
	to_hex(raw, bytes, out);
	return 0;
}

int run_collector_open(struct run_collector *c, const char *directory,
		       const char *name_template, bool keep_empty, char *err,
		       size_t errlen)
{
	char name[RUN_NAME_MAX + 1], suffix[17];
	struct sockaddr_un addr;
	int rc;

	memset(c, 0, sizeof(*c));
	c->listen_fd = -1;
	c->tally.fd = -1;
	if ((rc = random_hex(c->token, RUN_TOKEN_HEX / 2)) ||
	    (rc = random_hex(suffix, 8))) {
		snprintf(err, errlen, "no random numbers: %s", strerror(-rc));
		return rc;
	}
	snprintf(name, sizeof(name), "trms-run.%d.%s", (int)getpid(), suffix);
	c->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK |
						SOCK_CLOEXEC,
			      0);
	memset(&addr, 0, sizeof(addr));
	addr.sun_family = AF_UNIX;
	memcpy(addr.sun_path + 1, name, strlen(name));
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				    1 + strlen(name));
	if (c->listen_fd < 0 ||
	    bind(c->listen_fd, (struct sockaddr *)&addr, len) ||
	    listen(c->listen_fd, SOMAXCONN)) {
		rc = -errno;
		snprintf(err, errlen, "cannot listen on a socket: %s",
			 strerror(-rc));
		if (c->listen_fd >= 0)
			close(c->listen_fd);
		c->listen_fd = -1;
		return rc;
	}
	snprintf(c->variable, sizeof(c->variable), "%s,%s%s", name, c->token,
		 keep_empty ? ",all" : "");
	/* Without a tally (TMPDIR not writable, say), they connect. */
	if (!keep_empty && run_tally_create(&c->tally, name) == 0)
		snprintf(c->variable + strlen(c->variable),
			 sizeof(c->variable) - strlen(c->variable),
			 RUN_TALLY_FLAG "%s", c->tally.path);
	c->directory = directory ? xstrdup(directory) : NULL;
	c->name_template = xstrdup(name_template);
	return 0;
}

size_t run_collector_pollfds(const struct run_collector *c,
			     struct pollfd *fds, size_t max)
{
	size_t n = 0;

	if (max && c->listen_fd >= 0 && !c->rest_until)
		fds[n++] = (struct pollfd){ c->listen_fd, POLLIN, 0 };
	for (size_t i = 0; i < c->n_connections && n < max; i++)
		fds[n++] = (struct pollfd){ c->connections[i]->fd, POLLIN, 0 };
	return n;
}

/* ---- outcomes ---- */

static void keep(struct run_collector *c, struct outcome o)
{
	if (c->n_outcomes == c->outcomes_cap) {
		c->outcomes_cap = c->outcomes_cap ? 2 * c->outcomes_cap : 64;
		c->outcomes = xrealloc(c->outcomes,
				       c->outcomes_cap * sizeof(*c->outcomes));
	}
	c->outcomes[c->n_outcomes++] = o;
}

/* A line of the tally: a process (as it sees its pid, which is how trms
 * run sees it too unless it is in another pid namespace) recorded
 * nothing. */
static void keep_tallied(void *ctx, long pid, uint64_t start, int last)
{
	keep(ctx, (struct outcome){
			  .kind = OUTCOME_EMPTY,
			  .last = last,
			  .peer = (pid_t)pid,
			  .pid = pid,
			  .process_start = start,
		  });
}

void collector_add_outcome(struct run_collector *c,
			   const struct connection *k, enum outcome_kind kind,
			   const char *path, const char *reason)
{
	keep(c, (struct outcome){
		.kind = kind,
		.last = k->h.last,
		.window = k->h.window,
		.peer = k->peer,
		.pid = k->h.pid,
		.process_start = k->h.process_start,
		.path = path ? xstrdup(path) : NULL,
		.reason = reason ? xstrdup(reason) : NULL,
	});
}

static void end_connection(struct run_collector *c, size_t i, bool complete)
{
	struct connection *k = c->connections[i];

	if (k->file_open)
		atomic_file_abort(&k->file);
	if (!complete && k->state != READ_HEADER)
		collector_add_outcome(c, k, OUTCOME_CUT_SHORT, k->path, NULL);
	close(k->fd);
	free(k);
	c->connections[i] = c->connections[--c->n_connections];
}

/* Read what @c->connections[i] has; false once it is closed. */
static bool serve_connection(struct run_collector *c, size_t i)
{
	struct connection *k = c->connections[i];
	char buf[65536];

	for (;;) {
		ssize_t n = recv(k->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return true;
		if (n <= 0) {
			end_connection(c, i, false);
			return false;
		}
		if (!message_feed(c, k, buf, (size_t)n)) {
			end_connection(c, i, k->complete);
			return false;
		}
	}
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Every connection waiting.  @return how many. */
static size_t accept_all(struct run_collector *c)
{
	size_t taken = 0;

	for (;; taken++) {
		int fd = accept4(c->listen_fd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return taken;
		struct connection *k = xcalloc(1, sizeof(*k));
		struct ucred cred;
		socklen_t len = sizeof(cred);
		k->fd = fd;
		k->state = READ_HEADER;
		if (!getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len))
			k->peer = cred.pid;
		if (c->n_connections == c->connections_cap) {
			c->connections_cap = c->connections_cap
						     ? 2 * c->connections_cap
						     : 16;
			c->connections = xrealloc(
				c->connections,
				c->connections_cap * sizeof(*c->connections));
		}
		c->connections[c->n_connections++] = k;
	}
}

void run_collector_serve(struct run_collector *c, const struct pollfd *fds,
			 size_t n)
{
	/* Connections first: accepting reorders nothing before them. */
	for (size_t f = n; f-- > 0;) {
		if (!fds[f].revents || fds[f].fd == c->listen_fd)
			continue;
		for (size_t i = 0; i < c->n_connections; i++)
			if (c->connections[i]->fd == fds[f].fd) {
				serve_connection(c, i);
				break;
			}
	}
	bool waiting = false;
	for (size_t f = 0; f < n; f++)
		waiting |= fds[f].fd == c->listen_fd && fds[f].revents;
	/* After a rest, what came meanwhile; while connections keep
	 * coming, rest again. */
	if (waiting || (c->rest_until && now_ms() >= c->rest_until)) {
		size_t taken = accept_all(c);
		c->rest_until = waiting || taken ? now_ms() + RUN_REST_MS : 0;
	}
}

int run_collector_wait_ms(const struct run_collector *c)
{
	uint64_t now = now_ms();

	if (!c->rest_until)
		return -1;
	return c->rest_until > now ? (int)(c->rest_until - now) : 0;
}

void run_collector_drain(struct run_collector *c, int timeout_ms)
{
	uint64_t give_up = now_ms() + (uint64_t)timeout_ms;

	accept_all(c);
	while (c->n_connections) {
		size_t cap = c->n_connections + 1;
		struct pollfd *fds = xcalloc(cap, sizeof(*fds));
		size_t n = run_collector_pollfds(c, fds, cap);
		uint64_t now = now_ms();
		int wait = now < give_up ? (int)(give_up - now) : 0;
		int r = poll(fds, n, wait);
		if (r > 0)
			run_collector_serve(c, fds, n);
		free(fds);
		if (r == 0) {
			/* Still silent: cut short. */
			while (c->n_connections)
				end_connection(c, c->n_connections - 1, false);
		}
		accept_all(c);
	}
	/* After the connections: a process that tallied has ended its
	 * talking with trms run. */
	run_tally_take(&c->tally, c->token, keep_tallied, c);
}

void run_collector_close(struct run_collector *c)
{
	while (c->n_connections)
		end_connection(c, c->n_connections - 1, false);
	if (c->listen_fd >= 0)
		close(c->listen_fd);
	c->listen_fd = -1;
	run_tally_remove(&c->tally);
	for (size_t i = 0; i < c->names_cap; i++)
		free(c->names[i].name);
	free(c->names);
	free(c->connections);
	for (size_t i = 0; i < c->n_outcomes; i++) {
		free(c->outcomes[i].path);
		free(c->outcomes[i].reason);
	}
	free(c->outcomes);
	free(c->directory);
	free(c->name_template);
	memset(c, 0, sizeof(*c));
	c->listen_fd = -1;
	c->tally.fd = -1;
}
