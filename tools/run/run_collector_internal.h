/*
 * run_collector_internal.h - what the two halves of the collector share:
 * run_collector.c serves the socket (connections accepted, read, ended;
 * the outcomes kept), run_message.c reads what one connection says (its
 * header, the file name it is given, the profile it hands over).
 */
#ifndef TRMS_RUN_COLLECTOR_INTERNAL_H
#define TRMS_RUN_COLLECTOR_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/atomic_file.h"
#include "run_collector.h"
#include "output/run_protocol.h"

enum message_kind { KIND_PROFILE, KIND_EMPTY, KIND_WRITTEN, KIND_FAILED };

struct header {
	enum message_kind kind;
	bool last;
	unsigned long window; /* a window's profile, or 0 */
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
	struct atomic_file file;
};

/* Which process image a file name was given to. */
struct file_name {
	char *name; /* NULL: a free slot */
	long pid;
	uint64_t process_start, image;
};

/* ---- run_collector.c ---- */

/* Keep what @k's message said became of a profile. */
void collector_add_outcome(struct run_collector *c,
			   const struct connection *k, enum outcome_kind kind,
			   const char *path, const char *reason);

/* ---- run_message.c ---- */

/* Feed @n bytes that arrived on @k.  @return false when the message is
 * over (complete, or not one to hear). */
bool message_feed(struct run_collector *c, struct connection *k,
		  const char *p, size_t n);

#endif
