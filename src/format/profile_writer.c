/*
 * profile_writer.c - writes a profile file atomically (see
 * profile_writer.h and docs/profile-format.md).
 */
#define _GNU_SOURCE
#include "profile_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>


static void flush_buffer(struct profile_writer *w)
{
	if (w->len && !w->error) {
		int rc = w->sink(w->sink_ctx, w->buf, w->len);
		if (rc)
			w->error = -rc;
	}
	w->len = 0;
}

static void put_bytes(struct profile_writer *w, const char *s, size_t n)
{
	while (n && !w->error) {
		if (w->len == sizeof(w->buf))
			flush_buffer(w);
		size_t room = sizeof(w->buf) - w->len;
		size_t take = n < room ? n : room;
		memcpy(w->buf + w->len, s, take);
		w->len += take;
		s += take;
		n -= take;
	}
}

static void put(struct profile_writer *w, const char *s)
{
	put_bytes(w, s, strlen(s));
}

char *u128_to_text(unsigned __int128 v, char *buf)
{
	char tmp[40];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
	return buf;
}

static void put_u128(struct profile_writer *w, unsigned __int128 v)
{
	char buf[40];

	put(w, u128_to_text(v, buf));
}

/* Names are written with every byte that could end a field or a line, and
 * '%' itself, as %XX. */
static void put_name(struct profile_writer *w, const char *name)
{
	static const char hex[] = "0123456789ABCDEF";

	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		if (*p <= ' ' || *p == '%' || *p == 0x7f) {
			char esc[3] = { '%', hex[*p >> 4], hex[*p & 15] };
			put_bytes(w, esc, 3);
		} else {
			put_bytes(w, (const char *)p, 1);
		}
	}
}

static unsigned __int128 scaled(struct profile_writer *w, unsigned __int128 v,
				int power)
{
	if (w->ns_per_tick) {
		w->scale = w->ns_per_tick();
		w->ns_per_tick = NULL;
	}
	if (w->scale == 1.0)
		return v;
	long double x = (long double)v * w->scale;
	if (power == 2)
		x *= w->scale;
	return (unsigned __int128)(x + 0.5L);
}

static int file_sink(void *ctx, const void *buf, size_t n)
{
	return profile_file_write(ctx, buf, n);
}

void profile_writer_start(struct profile_writer *w, profile_sink *sink,
			  void *ctx)
{
	char head[64];

	w->sink = sink;
	w->sink_ctx = ctx;
	w->error = 0;
	w->tuples = 0;
	w->len = 0;
	if (w->scale == 0)
		w->scale = 1.0;
	snprintf(head, sizeof(head), "trms-profile %d\n",
		 PROFILE_FORMAT_VERSION);
	put(w, head);
}

int profile_writer_open(struct profile_writer *w, const char *path)
{
	int rc = profile_file_open(&w->file, path);

	if (rc)
		return rc;
	profile_writer_start(w, file_sink, &w->file);
	return 0;
}

void profile_writer_meta(struct profile_writer *w, const char *key,
			 const char *value)
{
	put(w, "meta ");
	put(w, key);
	if (*value) {
		put(w, " ");
		put_name(w, value);
	}
	put(w, "\n");
}

void profile_writer_meta_raw(struct profile_writer *w, const char *key,
			     const char *value)
{
	put(w, "meta ");
	put(w, key);
	if (*value) {
		put(w, " ");
		put(w, value);
	}
	put(w, "\n");
}

void profile_writer_meta_u64(struct profile_writer *w, const char *key,
			     uint64_t value)
{
	put(w, "meta ");
	put(w, key);
	put(w, " ");
	put_u128(w, value);
	put(w, "\n");
}

void profile_writer_region(struct profile_writer *w, uint32_t id,
			   const char *name)
{
	put(w, "region ");
	put_u128(w, id);
	put(w, " ");
	put_name(w, name);
	put(w, "\n");
}

static void put_field(struct profile_writer *w, const char *key,
		      uint64_t value)
{
	put(w, " ");
	put(w, key);
	put(w, "=");
	put_u128(w, value);
}

void profile_writer_thread(struct profile_writer *w,
			   const struct thread_info *info)
{
	put(w, "thread ");
	put_u128(w, info->ordinal);
	if (info->name && *info->name) {
		put(w, " name=");
		put_name(w, info->name);
	}
	if (info->has_creator)
		put_field(w, "creator", info->creator);
	for (unsigned i = 0; i < info->context_depth; i++) {
		put(w, i ? "/" : " context=");
		put_u128(w, info->context[i]);
	}
	put_field(w, "in_bytes", info->in_bytes);
	put_field(w, "in_calls", info->in_calls);
	put_field(w, "out_bytes", info->out_bytes);
	put_field(w, "out_calls", info->out_calls);
	if (info->sampled) {
		put_field(w, "samples", info->samples);
		put_field(w, "cpu_ns", info->cpu_ns);
		put_field(w, "library_samples", info->library_samples);
	}
	put_field(w, "library_ns", info->library_ns);
	put(w, "\n");
}

static void put_number(struct profile_writer *w, uint64_t v)
{
	put(w, " ");
	put_u128(w, v);
}

void profile_writer_module(struct profile_writer *w, uint32_t id,
			   uintptr_t start, uintptr_t end, uintptr_t base,
			   bool unloaded, const char *path)
{
	put(w, "module");
	put_number(w, id);
	put_number(w, start);
	put_number(w, end);
	put_number(w, base);
	put(w, unloaded ? " unloaded " : " loaded ");
	put_name(w, *path ? path : "?");
	put(w, "\n");
}

void profile_writer_symbol(struct profile_writer *w, uint32_t module,
			   uint64_t offset, const char *name,
			   uint64_t name_offset)
{
	put(w, "symbol");
	put_number(w, module);
	put_number(w, offset);
	put(w, " ");
	put_name(w, *name ? name : "?");
	put_number(w, name_offset);
	put(w, "\n");
}

void profile_writer_cct(struct profile_writer *w, const struct cct_line *l)
{
	put(w, "cct");
	put_number(w, l->thread);
	put_number(w, l->node);
	if (l->has_parent)
		put_number(w, l->parent);
	else
		put(w, " -");
	put(w, " ");
	put(w, l->kind);
	put_number(w, l->a);
	put_number(w, l->b);
	put_number(w, l->samples);
	put_number(w, l->work);
	put_number(w, l->idleness_millionths);
	put_number(w, l->overhead);
	put_number(w, l->blocked);
	put(w, "\n");
}

void profile_writer_tuple(struct profile_writer *w, uint32_t thread,
			  const struct tuple_data *t)
{
	put(w, "tuple ");
	put_u128(w, t->region);
	put(w, " ");
	put_u128(w, thread);
	put(w, t->metric == METRIC_TRMS ? " trms " : " rms ");
	put_u128(w, t->n);
	put(w, " ");
	put_u128(w, t->count);
	put(w, " ");
	put_u128(w, scaled(w, t->min, 1));
	put(w, " ");
	put_u128(w, scaled(w, t->max, 1));
	put(w, " ");
	put_u128(w, scaled(w, t->sum, 1));
	put(w, " ");
	put_u128(w, scaled(w, t->sumsq, 2));
	put(w, " ");
	put_u128(w, t->induced_thread);
	put(w, " ");
	put_u128(w, t->induced_external);
	put(w, "\n");
	w->tuples++;
}

int profile_writer_end(struct profile_writer *w)
{
	put(w, "end ");
	put_u128(w, w->tuples);
	put(w, "\n");
	flush_buffer(w);
	return -w->error;
}

int profile_writer_commit(struct profile_writer *w)
{
	int rc = profile_writer_end(w);

	if (rc) {
		profile_file_abort(&w->file);
		return rc;
	}
	return profile_file_commit(&w->file);
}

void profile_writer_abort(struct profile_writer *w)
{
	profile_file_abort(&w->file);
}
