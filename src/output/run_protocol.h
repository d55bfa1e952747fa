/*
 * run_protocol.h - how a process under `trms run` hands over its profile,
 * or says what became of it: the library's side is run_link.c, trms run's
 * tools/run/run_collector.c.
 *
 * trms run listens on an abstract AF_UNIX stream socket (no file: nothing
 * for permissions to refuse, nothing a chroot hides, gone when trms run
 * is) and tells the processes of its tree in the environment:
 *
 *   TRMS_RUN_SOCKET=NAME,TOKEN[,all|,tally=PATH]
 *
 * NAME is the socket's abstract name, TOKEN a random secret that proves a
 * message comes from the tree (abstract names are visible to every local
 * user in /proc/net/unix; the environment of a process is not), "all"
 * asks for the profiles of processes that recorded nothing too.
 *
 * "tally=PATH" (last: the path may hold commas) names a file, writable by
 * everyone and readable by trms run alone, where a process that recorded
 * nothing appends one line instead of connecting:
 *
 *   TOKEN PID PROCESS_START LAST
 *
 * (the values as in the header below).  A connection wakes trms run, and
 * that wake-up is most of what a note costs a short process (0.3-0.4 ms
 * of CPU on a virtual machine, against some 30 us for the append); nobody
 * waits on the file, which trms run reads at the end.  A process that
 * cannot append (no access to the file, a file-size limit) connects as
 * before.
 *
 * One connection carries one message: header lines "key value" (values
 * escaped as profile names are: every byte <= ' ', '%' and 0x7f as %XX),
 *
 *   trms-run 1                  the protocol's version
 *   token TOKEN
 *   kind profile|empty|written|failed
 *   last 0|1                    the image's last profile (exit, fatal
 *                               signal), not a flush or one before exec
 *   pid N                       as the process sees itself
 *   process_start N             /proc/self/stat's start time (ticks)
 *   image N                     when this image's library started (ns
 *                               since the epoch): tells exec'd images of
 *                               one process apart
 *   program NAME                what %e stands for
 *   window N                    profile, written, failed: a window's
 *                               profile (TRMS_INTERVAL), N from 1; trms
 *                               run names it as the image's profile
 *                               with .wN before .trms
 *   path PATH                   written, failed: where the process wrote
 *                               its profile, or tried to
 *   error N                     failed: the errno
 *   reason WORDS                failed: why, in words
 *
 * then an empty line.  For kind "profile" the profile follows in chunks,
 * each a 4-byte little-endian length and that many bytes, the last of
 * length 0 (a connection that ends before it was cut short: trms run
 * keeps nothing of it).  Nothing is answered: the process does not wait
 * for trms run to write the file (its exit stays short); trms run says
 * at the end what it could not write.  trms run names the file itself,
 * from its own template, the pid and the program: a process never
 * chooses a path.
 *
 *   profile  trms run writes the profile into its directory
 *   empty    the process recorded nothing (no samples, no regions, no
 *            I/O) and, without "all", wrote nothing
 *   written  the process wrote its profile itself (the template's
 *            directory depends on the process), at PATH
 *   failed   it could not write it, at PATH
 */
#ifndef TRMS_RUN_PROTOCOL_H
#define TRMS_RUN_PROTOCOL_H

#define RUN_PROTOCOL_VERSION 1
#define RUN_SOCKET_VARIABLE "TRMS_RUN_SOCKET"
#define RUN_HEADER_MAX 8192
#define RUN_CHUNK_MAX (1u << 20)
#define RUN_TOKEN_HEX 32
#define RUN_NAME_MAX 100
#define RUN_TALLY_PATH_MAX 480
#define RUN_TALLY_FLAG ",tally="

#endif
