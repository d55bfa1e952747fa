/*
 * trace.c - reading event traces (see trace.h).
 */
#define _GNU_SOURCE
#include "trace.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fnv1a.h"
#include "shadow.h"

static const char *const op_names[] = {
	[TRACE_CALL] = "call",	 [TRACE_RETURN] = "return",
	[TRACE_READ] = "read",	 [TRACE_WRITE] = "write",
	[TRACE_KREAD] = "kread", [TRACE_KWRITE] = "kwrite",
};

const char *trace_op_name(enum trace_op op)
{
	return op_names[op];
}

void trace_init(struct trace *t)
{
	memset(t, 0, sizeof(*t));
}

void trace_free(struct trace *t)
{
	for (size_t i = 0; i < t->n_names; i++)
		free(t->names[i]);
	free(t->names);
	free(t->events);
	free(t->tids);
	free(t->name_index);
	free(t->tid_index);
	trace_init(t);
}

static void *grow_array(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	size_t cap2 = *cap ? *cap : 16;
	while (cap2 < need)
		cap2 *= 2;
	void *q = realloc(p, cap2 * elem);
	if (!q) {
		fprintf(stderr, "trms: out of memory\n");
		exit(1);
	}
	*cap = cap2;
	return q;
}

static uint64_t hash_u64(uint64_t v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdull;
	v ^= v >> 33;
	return v;
}

/* Open-addressing index of entries 1..n (0 = empty slot). */
static void index_rebuild(uint32_t **index, size_t *cap, size_t n,
			  uint64_t (*key_hash)(const struct trace *, uint32_t),
			  const struct trace *t)
{
	size_t cap2 = 64;

	while (cap2 < 2 * (n + 1))
		cap2 *= 2;
	free(*index);
	*index = calloc(cap2, sizeof(**index));
	if (!*index) {
		fprintf(stderr, "trms: out of memory\n");
		exit(1);
	}
	*cap = cap2;
	for (uint32_t i = 0; i < n; i++) {
		size_t j = key_hash(t, i) & (cap2 - 1);
		while ((*index)[j])
			j = (j + 1) & (cap2 - 1);
		(*index)[j] = i + 1;
	}
}

static uint64_t name_hash(const struct trace *t, uint32_t i)
{
	return fnv1a_string(t->names[i]);
}

static uint64_t tid_hash(const struct trace *t, uint32_t i)
{
	return hash_u64(t->tids[i]);
}

uint32_t trace_name(struct trace *t, const char *name)
{
	if (2 * (t->n_names + 1) > t->name_index_cap)
		index_rebuild(&t->name_index, &t->name_index_cap, t->n_names,
			      name_hash, t);
	size_t mask = t->name_index_cap - 1;
	size_t j = fnv1a_string(name) & mask;
	for (; t->name_index[j]; j = (j + 1) & mask)
		if (!strcmp(t->names[t->name_index[j] - 1], name))
			return t->name_index[j] - 1;
	t->names = grow_array(t->names, &t->cap_names, t->n_names + 1,
			      sizeof(*t->names));
	t->names[t->n_names] = strdup(name);
	if (!t->names[t->n_names]) {
		fprintf(stderr, "trms: out of memory\n");
		exit(1);
	}
	t->name_index[j] = (uint32_t)++t->n_names;
	return (uint32_t)(t->n_names - 1);
}

uint32_t trace_thread(struct trace *t, uint64_t tid)
{
	if (2 * (t->n_threads + 1) > t->tid_index_cap)
		index_rebuild(&t->tid_index, &t->tid_index_cap, t->n_threads,
			      tid_hash, t);
	size_t mask = t->tid_index_cap - 1;
	size_t j = hash_u64(tid) & mask;
	for (; t->tid_index[j]; j = (j + 1) & mask)
		if (t->tids[t->tid_index[j] - 1] == tid)
			return t->tid_index[j] - 1;
	t->tids = grow_array(t->tids, &t->cap_threads, t->n_threads + 1,
			     sizeof(*t->tids));
	t->tids[t->n_threads] = tid;
	t->tid_index[j] = (uint32_t)++t->n_threads;
	return (uint32_t)(t->n_threads - 1);
}

int trace_append(struct trace *t, const struct trace_event *e)
{
	t->events = grow_array(t->events, &t->cap_events, t->n_events + 1,
			       sizeof(*t->events));
	t->events[t->n_events++] = *e;
	return 0;
}

/* A number: decimal, or also 0x hex when @hex_ok.  Whole token only. */
static bool parse_number(const char *s, bool hex_ok, uint64_t *out)
{
	int base = 10;
	char *end;

	if (hex_ok && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	/* strtoull accepts signs and spaces: allow only digits. */
	if (!*s)
		return false;
	for (const char *p = s; *p; p++) {
		bool digit = base == 16 ? (*p >= '0' && *p <= '9') ||
						  (*p >= 'a' && *p <= 'f') ||
						  (*p >= 'A' && *p <= 'F')
					: (*p >= '0' && *p <= '9');
		if (!digit)
			return false;
	}
	errno = 0;
	*out = strtoull(s, &end, base);
	return errno == 0 && *end == '\0';
}

static int fail(char *err, size_t errlen, const char *name, size_t line,
		const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, errlen, "%s:%zu: ", name, line);

	if (n < 0 || (size_t)n >= errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

#define MAX_FIELDS 5

/* Split @line at blanks into at most MAX_FIELDS fields, after cutting a
 * comment; returns the number of fields (MAX_FIELDS + 1 if more). */
static size_t split_fields(char *line, char **fields)
{
	size_t n = 0;
	char *hash = strchr(line, '#');

	if (hash)
		*hash = '\0';
	for (char *tok = strtok(line, " \t\r\n\v\f"); tok;
	     tok = strtok(NULL, " \t\r\n\v\f")) {
		if (n == MAX_FIELDS)
			return MAX_FIELDS + 1;
		fields[n++] = tok;
	}
	return n;
}

static int parse_op(const char *s)
{
	for (size_t i = 0; i < sizeof(op_names) / sizeof(op_names[0]); i++)
		if (!strcmp(s, op_names[i]))
			return (int)i;
	return -1;
}

int trace_parse(FILE *f, const char *name, struct trace *t, char *err,
		size_t errlen)
{
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	size_t *depth = NULL, depth_cap = 0; /* pending calls per thread */
	int rc = -1;

	while (getline(&line, &cap, f) >= 0) {
		char *fields[MAX_FIELDS];
		struct trace_event e = { 0 };
		uint64_t tid;
		size_t n, want;
		int op;

		lineno++;
		n = split_fields(line, fields);
		if (n == 0)
			continue;
		if (!parse_number(fields[0], false, &tid) || tid > UINT32_MAX) {
			fail(err, errlen, name, lineno, "bad thread id '%s'",
			     fields[0]);
			goto out;
		}
		if (n < 2) {
			fail(err, errlen, name, lineno,
			     "missing operation after the thread id");
			goto out;
		}
		op = parse_op(fields[1]);
		if (op < 0) {
			fail(err, errlen, name, lineno,
			     "unknown operation '%s' (expected call, return, "
			     "read, write, kread or kwrite)",
			     fields[1]);
			goto out;
		}
		want = op == TRACE_CALL ? 3 : op == TRACE_RETURN ? 2 : 4;
		if (n < want) {
			fail(err, errlen, name, lineno, "missing %s for '%s'",
			     op == TRACE_CALL ? "region name"
			     : n == 2	      ? "address and size"
					      : "size",
			     fields[1]);
			goto out;
		}
		if (n > want) {
			fail(err, errlen, name, lineno,
			     "extra field '%s' after '%s'",
			     n > MAX_FIELDS ? "..." : fields[want], fields[1]);
			goto out;
		}
		e.op = (uint32_t)op;
		size_t known = t->n_threads;
		e.thread = trace_thread(t, tid);
		depth = grow_array(depth, &depth_cap, t->n_threads,
				   sizeof(*depth));
		if (t->n_threads > known)
			depth[e.thread] = 0;
		if (op == TRACE_CALL) {
			e.name = trace_name(t, fields[2]);
			depth[e.thread]++;
		} else if (op == TRACE_RETURN) {
			if (!depth[e.thread]) {
				fail(err, errlen, name, lineno,
				     "return on thread %llu, which has no "
				     "pending activation",
				     (unsigned long long)tid);
				goto out;
			}
			depth[e.thread]--;
		} else {
			if (!parse_number(fields[2], true, &e.addr)) {
				fail(err, errlen, name, lineno,
				     "bad address '%s'", fields[2]);
				goto out;
			}
			if (!parse_number(fields[3], false, &e.size)) {
				fail(err, errlen, name, lineno,
				     "bad size '%s'", fields[3]);
				goto out;
			}
			if (e.size == 0) {
				fail(err, errlen, name, lineno,
				     "size must be at least 1");
				goto out;
			}
			if (e.addr >= SHADOW_ADDR_LIMIT ||
			    e.size > SHADOW_ADDR_LIMIT - e.addr) {
				fail(err, errlen, name, lineno,
				     "range beyond the 47-bit address space");
				goto out;
			}
		}
		trace_append(t, &e);
	}
	if (ferror(f)) {
		fail(err, errlen, name, lineno + 1, "read error: %s",
		     strerror(errno));
		goto out;
	}
	rc = 0;
out:
	free(line);
	free(depth);
	return rc;
}
