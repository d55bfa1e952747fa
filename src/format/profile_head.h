/*
 * profile_head.h - what the first lines of a profile file say, read
 * without the reader: for the library, which must not allocate, and only
 * wants a fact or two of a profile already on disk (output.c: was it
 * written by an earlier image of this process?).
 */
#ifndef TRMS_PROFILE_HEAD_H
#define TRMS_PROFILE_HEAD_H

#include <stdbool.h>
#include <stdint.h>

/* Whether @head, the start of a file as text (NUL-terminated), is the
 * start of a profile: its first line begins as a profile's does. */
bool profile_head_is_profile(const char *head);

/* The number on the line "meta @key N" of @head, the start of a profile
 * (NUL-terminated; the meta lines come first, so the first few kilobytes
 * hold them).  @return false if @head has no such line, whole, or its
 * value is not a number.  Allocates nothing; async-signal-safe. */
bool profile_head_meta_u64(const char *head, const char *key,
			   uint64_t *value);

#endif
