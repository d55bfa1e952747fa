/*
 * profile_reader.h - profiles as the tools read them: the format's reader
 * (profile_doc.h: every line checked, nothing else done), and what the
 * report needs beyond the file, looked up on demand in the modules'
 * files: the names of the functions the profile does not name, C++ names
 * demangled, source lines.
 */
#ifndef TRMS_PROFILE_READER_H
#define TRMS_PROFILE_READER_H

#include <stdbool.h>
#include <stdint.h>

#include "format/profile_doc.h"

/* The name of the function at @offset of @module, from the profile's
 * symbol lines or else from the module's file; NULL if unknown. */
const char *profile_symbol(struct profile_doc *doc, uint32_t module,
			   uint64_t offset);

/* Name the regions of functions the library could not name, in a profile
 * written from a signal handler or at _exit (code built with `trms cc`):
 * by their symbols in the objects' files, else "OBJECT+0xOFFSET". */
void profile_name_functions(struct profile_doc *doc);

/* From now on, give C++ function names demangled: the names of all
 * sampled frames, and those of source lines looked up later. */
void profile_demangle(struct profile_doc *doc);

/* The source file of the code at @offset of @module, its line in @line;
 * NULL if the module has no debug information for it (or binutils'
 * addr2line, which reads it, cannot be run).  For a caller's frame, the
 * line of the call.  If @function is not NULL, it is set to the name the
 * debug information gives the function there, or NULL. */
const char *profile_source_line(struct profile_doc *doc, uint32_t module,
				uint64_t offset, unsigned *line,
				const char **function);

#endif
