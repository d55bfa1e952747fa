/*
 * run_message.c - what one process says to `trms run` (the protocol:
 * src/output/run_protocol.h): its header, checked and noted; the file name its
 * profile gets (trms run's template, the process's pid and program: never
 * a path of its choosing); the profile, written as it arrives (see
 * run_collector_internal.h).
 */
#define _GNU_SOURCE
#include "run_collector_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fnv1a.h"
#include "base/output_template.h"
#include "format/profile_format.h"
#include "xalloc.h"

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
		} else if (!strcmp(line, "window")) {
			if (parse_number(value, &number) && number < (1ul << 40))
				h->window = (unsigned long)number;
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
		collector_add_outcome(c, k, OUTCOME_EMPTY, NULL, NULL);
		return false;
	case KIND_WRITTEN:
		collector_add_outcome(c, k, OUTCOME_WRITTEN, k->h.path, NULL);
		return false;
	case KIND_FAILED:
		collector_add_outcome(c, k, OUTCOME_FAILED, k->h.path,
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
	/* A window goes beside the image's profile, named after it. */
	if (!rc && k->h.window) {
		char image_name[sizeof(name)];
		snprintf(image_name, sizeof(image_name), "%s", name);
		rc = template_windowed(image_name, k->h.window, name,
				       sizeof(name));
	}
	if (!rc && (size_t)snprintf(k->path, sizeof(k->path), "%s/%s",
				    c->directory, name) >= sizeof(k->path))
		rc = -ENAMETOOLONG;
	if (!rc)
		rc = atomic_file_open(&k->file, k->path);
	if (rc) {
		k->error = rc;
		k->why = atomic_file_error(&k->file, rc);
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
			int rc = atomic_file_write(&k->file, p, 1);
			if (rc) {
				k->error = rc;
				k->why = atomic_file_error(&k->file, rc);
			}
		}
		p++;
		n--;
	}
	if (n && k->file_open && !k->error) {
		int rc = atomic_file_write(&k->file, p, n);
		if (rc) {
			k->error = rc;
			k->why = atomic_file_error(&k->file, rc);
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
		atomic_file_abort(&k->file);
	} else if (k->file_open) {
		int rc = atomic_file_commit(&k->file);
		if (rc) {
			k->error = rc;
			k->why = atomic_file_error(&k->file, rc);
		}
	}
	k->file_open = false;
	k->complete = true;
	if (k->error)
		collector_add_outcome(c, k, OUTCOME_FAILED, k->path, k->why);
	else
		collector_add_outcome(c, k, OUTCOME_WRITTEN, k->path, NULL);
}

/* Feed @n bytes that arrived.  @return false when the message is over
 * (complete, or not one to hear). */
bool message_feed(struct run_collector *c, struct connection *k,
		  const char *p, size_t n)
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
