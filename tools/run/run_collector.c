/*
 * run_collector.c - `trms run`'s end of the processes' socket (see
 * run_collector.h and src/run_protocol.h).
 */
#define _GNU_SOURCE
#include "run_collector.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "profile_reader.h"
#include "fnv1a.h"
#include "xalloc.h"
#include "output_template.h"
#include "profile_file.h"
#include "run_protocol.h"

enum message_kind { KIND_PROFILE, KIND_EMPTY, KIND_WRITTEN, KIND_FAILED };

struct header {
	enum message_kind kind;
	bool last;
	long pid;
	uint64_t process_start, image;
	char program[256];
	char path[PROFILE_FILE_PATH_MAX];
	int error;
	char reason[512];
};

enum state { READ_HEADER, READ_LENGTH, READ_DATA };

struct connection {
	int fd;
	pid_t peer;
	enum state state;
	char header_text[RUN_HEADER_MAX];
	size_t header_len;
	struct header h;
	unsigned char length[4];
	size_t length_got;
	uint32_t left;
	bool file_open;
	int error; /* the first failure of the profile's write, -errno */
	const char *why; /* ... in words */
	char magic[16];
	size_t magic_got;
	bool complete; /* the message is complete and dealt with */
	char path[PROFILE_FILE_PATH_MAX];
	struct profile_file file;
};

/* Which process image a file name was given to. */
struct file_name {
	char *name; /* NULL: a free slot */
	long pid;
	uint64_t process_start, image;
};

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

	if (bytes > sizeof(raw) ||
	    getrandom(raw, bytes, 0) != (ssize_t)bytes)
		return -1;
	to_hex(raw, bytes, out);
	return 0;
}

int run_collector_open(struct run_collector *c, const char *directory,
		       const char *name_template, bool keep_empty, char *err,
		       size_t errlen)
{
	char name[RUN_NAME_MAX + 1], suffix[17];
	struct sockaddr_un addr;

	memset(c, 0, sizeof(*c));
	c->listen_fd = -1;
	if (random_hex(c->token, RUN_TOKEN_HEX / 2) ||
	    random_hex(suffix, 8)) {
		snprintf(err, errlen, "no random numbers: %s", strerror(errno));
		return -1;
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
		snprintf(err, errlen, "cannot listen on a socket: %s",
			 strerror(errno));
		if (c->listen_fd >= 0)
			close(c->listen_fd);
		c->listen_fd = -1;
		return -1;
	}
	snprintf(c->variable, sizeof(c->variable), "%s,%s%s", name, c->token,
		 keep_empty ? ",all" : "");
	c->directory = directory ? xstrdup(directory) : NULL;
	c->name_template = xstrdup(name_template);
	return 0;
}

size_t run_collector_pollfds(const struct run_collector *c,
			     struct pollfd *fds, size_t max)
{
	size_t n = 0;

	if (max && c->listen_fd >= 0)
		fds[n++] = (struct pollfd){ c->listen_fd, POLLIN, 0 };
	for (size_t i = 0; i < c->n_connections && n < max; i++)
		fds[n++] = (struct pollfd){ c->connections[i]->fd, POLLIN, 0 };
	return n;
}

/* ---- outcomes ---- */

static void add_outcome(struct run_collector *c, const struct connection *k,
			enum outcome_kind kind, const char *path,
			const char *reason)
{
	if (c->n_outcomes == c->outcomes_cap) {
		c->outcomes_cap = c->outcomes_cap ? 2 * c->outcomes_cap : 64;
		c->outcomes = xrealloc(c->outcomes,
				       c->outcomes_cap * sizeof(*c->outcomes));
	}
	c->outcomes[c->n_outcomes++] = (struct outcome){
		.kind = kind,
		.last = k->h.last,
		.peer = k->peer,
		.pid = k->h.pid,
		.process_start = k->h.process_start,
		.path = path ? xstrdup(path) : NULL,
		.reason = reason ? xstrdup(reason) : NULL,
	};
}

/* ---- names ---- */

static struct file_name *find_name(struct run_collector *c, const char *name)
{
	if (c->n_names * 2 >= c->names_cap) {
		struct file_name *old = c->names;
		size_t old_cap = c->names_cap;
		c->names_cap = old_cap ? 2 * old_cap : 256;
		c->names = xcalloc(c->names_cap, sizeof(*c->names));
		for (size_t i = 0; i < old_cap; i++) {
			if (!old[i].name)
				continue;
			size_t j = fnv1a_string(old[i].name) & (c->names_cap - 1);
			while (c->names[j].name)
				j = (j + 1) & (c->names_cap - 1);
			c->names[j] = old[i];
		}
		free(old);
	}
	size_t j = fnv1a_string(name) & (c->names_cap - 1);
	while (c->names[j].name && strcmp(c->names[j].name, name))
		j = (j + 1) & (c->names_cap - 1);
	return &c->names[j];
}

/* The file name for @h: the template's, unless it went to another
 * process, or another image of this one; then NAME.1.trms, ... (as the
 * library names the profiles of later images itself). */
static int choose_name(struct run_collector *c, const struct header *h,
		       char *out, size_t len)
{
	char base[PROFILE_FILE_PATH_MAX];
	char program[sizeof(h->program)];

	/* The program's name goes into a file name: no '/', no leading
	 * dot. */
	snprintf(program, sizeof(program), "%s", h->program);
	for (char *p = program; *p; p++)
		if (*p == '/')
			*p = '_';
	if (program[0] == '.')
		program[0] = '_';
	if (template_expand(c->name_template, h->pid, program, base,
			    sizeof(base), 0))
		return -ENAMETOOLONG;
	if (!*base || strchr(base, '/') || !strcmp(base, ".") ||
	    !strcmp(base, ".."))
		return -EINVAL;
	for (unsigned n = 0; n < 10000; n++) {
		if (!n)
			snprintf(out, len, "%s", base);
		else if (template_suffixed(base, n, out, len))
			return -ENAMETOOLONG;
		struct file_name *slot = find_name(c, out);
		if (!slot->name) {
			*slot = (struct file_name){ xstrdup(out), h->pid,
						    h->process_start,
						    h->image };
			c->n_names++;
			return 0;
		}
		if (slot->pid == h->pid &&
		    slot->process_start == h->process_start &&
		    slot->image == h->image)
			return 0;
	}
	return -EEXIST;
}

/* ---- one connection ---- */

static bool same_token(const char *a, const char *b)
{
	unsigned char diff = 0;

	if (strlen(a) != RUN_TOKEN_HEX || strlen(b) != RUN_TOKEN_HEX)
		return false;
	for (size_t i = 0; i < RUN_TOKEN_HEX; i++)
		diff |= (unsigned char)(a[i] ^ b[i]);
	return diff == 0;
}

static bool parse_number(const char *s, uint64_t *out)
{
	return profile_parse_u64(s, out);
}

/* Read the header's lines; false if it is not a message of this run. */
static bool parse_header(const struct run_collector *c, char *text,
			 struct header *h)
{
	static const char *const kinds[] = { "profile", "empty", "written",
					     "failed" };
	bool version = false, token = false, kind = false, pid = false;
	uint64_t number;
	char *save = NULL;

	memset(h, 0, sizeof(*h));
	for (char *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *value = strchr(line, ' ');
		if (!value)
			return false;
		*value++ = '\0';
		if (profile_unescape(value))
			return false;
		if (!strcmp(line, "trms-run")) {
			version = parse_number(value, &number) &&
				  number == RUN_PROTOCOL_VERSION;
		} else if (!strcmp(line, "token")) {
			token = same_token(value, c->token);
		} else if (!strcmp(line, "kind")) {
			for (size_t i = 0; i < 4; i++)
				if (!strcmp(value, kinds[i])) {
					h->kind = (enum message_kind)i;
					kind = true;
				}
		} else if (!strcmp(line, "last")) {
			h->last = !strcmp(value, "1");
		} else if (!strcmp(line, "pid")) {
			pid = parse_number(value, &number) && number &&
			      number < (1u << 30);
			h->pid = (long)number;
		} else if (!strcmp(line, "process_start")) {
			parse_number(value, &h->process_start);
		} else if (!strcmp(line, "image")) {
			parse_number(value, &h->image);
		} else if (!strcmp(line, "program")) {
			snprintf(h->program, sizeof(h->program), "%s", value);
		} else if (!strcmp(line, "path")) {
			snprintf(h->path, sizeof(h->path), "%s", value);
		} else if (!strcmp(line, "error")) {
			if (parse_number(value, &number) && number < 4096)
				h->error = (int)number;
		} else if (!strcmp(line, "reason")) {
			snprintf(h->reason, sizeof(h->reason), "%s", value);
		}
	}
	if (!h->program[0])
		strcpy(h->program, "program");
	return version && token && kind && pid;
}

/* A complete header: note what it says, or start the profile's file.
 * @return false to close the connection. */
static bool header_done(struct run_collector *c, struct connection *k)
{
	char name[PROFILE_FILE_PATH_MAX];

	if (!parse_header(c, k->header_text, &k->h))
		return false; /* not from this run: not heard */
	k->complete = k->h.kind != KIND_PROFILE;
	switch (k->h.kind) {
	case KIND_EMPTY:
		add_outcome(c, k, OUTCOME_EMPTY, NULL, NULL);
		return false;
	case KIND_WRITTEN:
		add_outcome(c, k, OUTCOME_WRITTEN, k->h.path, NULL);
		return false;
	case KIND_FAILED:
		add_outcome(c, k, OUTCOME_FAILED, k->h.path,
			    k->h.reason[0] ? k->h.reason
					   : strerror(k->h.error));
		return false;
	case KIND_PROFILE:
		break;
	}
	k->state = READ_LENGTH;
	if (!c->directory) {
		k->error = -EINVAL;
		k->why = "trms run does not write the profiles of this run";
		return true;
	}
	int rc = choose_name(c, &k->h, name, sizeof(name));
	if (!rc && (size_t)snprintf(k->path, sizeof(k->path), "%s/%s",
				    c->directory, name) >= sizeof(k->path))
		rc = -ENAMETOOLONG;
	if (!rc)
		rc = profile_file_open(&k->file, k->path);
	if (rc) {
		k->error = rc;
		k->why = profile_file_error(&k->file, rc);
	} else {
		k->file_open = true;
	}
	if (!k->path[0])
		snprintf(k->path, sizeof(k->path), "%s/%s", c->directory,
			 k->h.program);
	return true;
}

static void profile_bytes(struct connection *k, const char *p, size_t n)
{
	static const char magic[] = PROFILE_MAGIC;
	size_t want = PROFILE_MAGIC_LEN;

	/* What is not a profile is not written. */
	while (k->magic_got < want && n && !k->error) {
		if (*p != magic[k->magic_got]) {
			k->error = -EPROTO;
			k->why = "what the process sent is not a profile";
		}
		k->magic[k->magic_got++] = *p;
		if (k->file_open && !k->error) {
			int rc = profile_file_write(&k->file, p, 1);
			if (rc) {
				k->error = rc;
				k->why = profile_file_error(&k->file, rc);
			}
		}
		p++;
		n--;
	}
	if (n && k->file_open && !k->error) {
		int rc = profile_file_write(&k->file, p, n);
		if (rc) {
			k->error = rc;
			k->why = profile_file_error(&k->file, rc);
		}
	}
}

/* The profile is complete: put it in place. */
static void profile_done(struct run_collector *c, struct connection *k)
{
	if (!k->error && k->magic_got < PROFILE_MAGIC_LEN) {
		k->error = -EPROTO;
		k->why = "what the process sent is not a profile";
	}
	if (k->file_open && k->error) {
		profile_file_abort(&k->file);
	} else if (k->file_open) {
		int rc = profile_file_commit(&k->file);
		if (rc) {
			k->error = rc;
			k->why = profile_file_error(&k->file, rc);
		}
	}
	k->file_open = false;
	k->complete = true;
	if (k->error)
		add_outcome(c, k, OUTCOME_FAILED, k->path, k->why);
	else
		add_outcome(c, k, OUTCOME_WRITTEN, k->path, NULL);
}

/* Feed @n bytes that arrived.  @return false when the message is over
 * (complete, or not one to hear). */
static bool feed(struct run_collector *c, struct connection *k, const char *p,
		 size_t n)
{
	while (n) {
		if (k->state == READ_HEADER) {
			if (k->header_len == sizeof(k->header_text) - 1)
				return false;
			k->header_text[k->header_len++] = *p++;
			n--;
			k->header_text[k->header_len] = '\0';
			if (k->header_len >= 2 &&
			    !strcmp(k->header_text + k->header_len - 2, "\n\n") &&
			    !header_done(c, k))
				return false;
		} else if (k->state == READ_LENGTH) {
			k->length[k->length_got++] = (unsigned char)*p++;
			n--;
			if (k->length_got < 4)
				continue;
			k->length_got = 0;
			k->left = (uint32_t)k->length[0] |
				  (uint32_t)k->length[1] << 8 |
				  (uint32_t)k->length[2] << 16 |
				  (uint32_t)k->length[3] << 24;
			if (k->left > RUN_CHUNK_MAX)
				return false;
			if (!k->left) {
				profile_done(c, k);
				return false;
			}
			k->state = READ_DATA;
		} else {
			size_t take = n < k->left ? n : k->left;
			profile_bytes(k, p, take);
			p += take;
			n -= take;
			k->left -= (uint32_t)take;
			if (!k->left)
				k->state = READ_LENGTH;
		}
	}
	return true;
}

/* Close connection @i.  One that ends before its message did (the
 * process ended in the middle of its profile) leaves nothing, and is
 * counted as cut short if it had begun a profile. */
static void end_connection(struct run_collector *c, size_t i, bool complete)
{
	struct connection *k = c->connections[i];

	if (k->file_open)
		profile_file_abort(&k->file);
	if (!complete && k->state != READ_HEADER)
		add_outcome(c, k, OUTCOME_CUT_SHORT, k->path, NULL);
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
		if (!feed(c, k, buf, (size_t)n)) {
			end_connection(c, i, k->complete);
			return false;
		}
	}
}

static void accept_all(struct run_collector *c)
{
	for (;;) {
		int fd = accept4(c->listen_fd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
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
	for (size_t f = 0; f < n; f++)
		if (fds[f].fd == c->listen_fd && fds[f].revents)
			accept_all(c);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
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
}

void run_collector_close(struct run_collector *c)
{
	while (c->n_connections)
		end_connection(c, c->n_connections - 1, false);
	if (c->listen_fd >= 0)
		close(c->listen_fd);
	c->listen_fd = -1;
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
}
