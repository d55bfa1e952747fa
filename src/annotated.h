/*
 * annotated.h - whether the program can open a region at all: some object
 * loaded in the process calls trms_region_begin (linked with the library,
 * or declaring the API weak), or the library is linked into the program.
 *
 * An unannotated program (a server run under `trms run` as it is) opens no
 * region until, perhaps, a plugin that does is loaded; until then the I/O
 * hooks need not record anything (io_hooks.c says why that changes no
 * result).
 */
#ifndef TRMS_ANNOTATED_H
#define TRMS_ANNOTATED_H

#include <stdbool.h>

/* Look through the objects loaded now (at start, and after each
 * dlopen). */
bool annotated_scan(void);

#endif
