/*
 * real.h - the C library's own versions of the functions the library
 * interposes (read, pthread_create, execve, sigaction, ...).
 *
 * Each is looked up once with dlsym(RTLD_NEXT), all together, at start or
 * at the first interposed call, whichever comes first (another library's
 * constructor may call read before ours has run).  dlsym itself calls no
 * function that the library interposes, so the lookup cannot recurse.
 */
#ifndef TRMS_REAL_H
#define TRMS_REAL_H

#include <link.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <semaphore.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <signal.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

struct real_functions {
	/* data arriving: kernel writes of the caller's buffers */
	ssize_t (*read)(int, void *, size_t);
	ssize_t (*pread)(int, void *, size_t, off_t);
	ssize_t (*pread64)(int, void *, size_t, off_t);
	ssize_t (*readv)(int, const struct iovec *, int);
	ssize_t (*preadv)(int, const struct iovec *, int, off_t);
	ssize_t (*preadv64)(int, const struct iovec *, int, off_t);
	ssize_t (*preadv2)(int, const struct iovec *, int, off_t, int);
	ssize_t (*preadv64v2)(int, const struct iovec *, int, off_t, int);
	ssize_t (*recv)(int, void *, size_t, int);
	ssize_t (*recvfrom)(int, void *, size_t, int, struct sockaddr *,
			    socklen_t *);
	ssize_t (*recvmsg)(int, struct msghdr *, int);
	ssize_t (*read_chk)(int, void *, size_t, size_t);
	ssize_t (*pread_chk)(int, void *, size_t, off_t, size_t);
	ssize_t (*pread64_chk)(int, void *, size_t, off_t, size_t);
	ssize_t (*recv_chk)(int, void *, size_t, size_t, int);
	ssize_t (*recvfrom_chk)(int, void *, size_t, size_t, int,
				struct sockaddr *, socklen_t *);
	size_t (*fread)(void *, size_t, size_t, FILE *);
	size_t (*fread_unlocked)(void *, size_t, size_t, FILE *);
	size_t (*fread_chk)(void *, size_t, size_t, size_t, FILE *);
	size_t (*fread_unlocked_chk)(void *, size_t, size_t, size_t, FILE *);
	char *(*fgets)(char *, int, FILE *);
	char *(*fgets_unlocked)(char *, int, FILE *);
	char *(*fgets_chk)(char *, size_t, int, FILE *);
	char *(*fgets_unlocked_chk)(char *, size_t, int, FILE *);
	ssize_t (*getline)(char **, size_t *, FILE *);
	ssize_t (*getdelim)(char **, size_t *, int, FILE *);
	ssize_t (*getdelim_internal)(char **, size_t *, int, FILE *);

	/* data leaving: kernel reads of the caller's buffers */
	ssize_t (*write)(int, const void *, size_t);
	ssize_t (*pwrite)(int, const void *, size_t, off_t);
	ssize_t (*pwrite64)(int, const void *, size_t, off_t);
	ssize_t (*writev)(int, const struct iovec *, int);
	ssize_t (*pwritev)(int, const struct iovec *, int, off_t);
	ssize_t (*pwritev64)(int, const struct iovec *, int, off_t);
	ssize_t (*pwritev2)(int, const struct iovec *, int, off_t, int);
	ssize_t (*pwritev64v2)(int, const struct iovec *, int, off_t, int);
	ssize_t (*send)(int, const void *, size_t, int);
	ssize_t (*sendto)(int, const void *, size_t, int,
			  const struct sockaddr *, socklen_t);
	ssize_t (*sendmsg)(int, const struct msghdr *, int);
	size_t (*fwrite)(const void *, size_t, size_t, FILE *);
	size_t (*fwrite_unlocked)(const void *, size_t, size_t, FILE *);
	int (*fputs)(const char *, FILE *);
	int (*fputs_unlocked)(const char *, FILE *);

	/* threads, processes, signals */
	int (*pthread_create)(pthread_t *, const pthread_attr_t *,
			      void *(*)(void *), void *);
	int (*execve)(const char *, char *const[], char *const[]);
	int (*execv)(const char *, char *const[]);
	int (*execvp)(const char *, char *const[]);
	int (*execvpe)(const char *, char *const[], char *const[]);
	int (*fexecve)(int, char *const[], char *const[]);
	void (*exit_now)(int) __attribute__((noreturn));
	void (*exit_now_c99)(int) __attribute__((noreturn));
	int (*sigaction)(int, const struct sigaction *, struct sigaction *);
	sighandler_t (*signal)(int, sighandler_t);
	int (*sigprocmask)(int, const sigset_t *, sigset_t *);
	int (*pthread_sigmask)(int, const sigset_t *, sigset_t *);
	int (*sigaltstack)(const stack_t *, stack_t *);
	int (*prctl)(int, ...);
	int (*chroot)(const char *);
	long (*syscall)(long, ...);
	int (*dlclose)(void *);
	void (*longjmp)(struct __jmp_buf_tag *, int) __attribute__((noreturn));
	void (*longjmp_bsd)(struct __jmp_buf_tag *, int)
		__attribute__((noreturn));
	void (*siglongjmp)(struct __jmp_buf_tag *, int)
		__attribute__((noreturn));
	void (*longjmp_chk)(struct __jmp_buf_tag *, int)
		__attribute__((noreturn));

	/* blocking */
	int (*poll)(struct pollfd *, nfds_t, int);
	int (*select)(int, fd_set *, fd_set *, fd_set *, struct timeval *);
	int (*epoll_wait)(int, struct epoll_event *, int, int);
	int (*nanosleep)(const struct timespec *, struct timespec *);
	int (*clock_nanosleep)(clockid_t, int, const struct timespec *,
			       struct timespec *);
	unsigned int (*sleep)(unsigned int);
	int (*sem_wait)(sem_t *);
	int (*sem_timedwait)(sem_t *, const struct timespec *);
	int (*pthread_mutex_lock)(pthread_mutex_t *);
	int (*pthread_cond_wait)(pthread_cond_t *, pthread_mutex_t *);
	int (*pthread_cond_timedwait)(pthread_cond_t *, pthread_mutex_t *,
				      const struct timespec *);
	int (*pthread_join)(pthread_t, void **);
	int (*pthread_barrier_wait)(pthread_barrier_t *);
	int (*accept)(int, struct sockaddr *, socklen_t *);
	int (*accept4)(int, struct sockaddr *, socklen_t *, int);
	int (*connect)(int, const struct sockaddr *, socklen_t);
	void *(*dlopen)(const char *, int);

	/* memory mapped and unmapped: its shadow goes (mapping_hooks.c) */
	void *(*mmap)(void *, size_t, int, int, int, off_t);
	void *(*mmap64)(void *, size_t, int, int, int, off_t);
	int (*munmap)(void *, size_t);
	void *(*mremap)(void *, size_t, size_t, int, ...);
	int (*madvise)(void *, size_t, int);
	int (*brk)(void *);
	void *(*sbrk)(intptr_t);
	int (*dl_iterate_phdr)(int (*)(struct dl_phdr_info *, size_t, void *),
			       void *);
};

extern struct real_functions real;

/* Look up every real function (idempotent, thread-safe). */
void real_resolve(void);

/* real.NAME, resolved first if need be. */
#define REAL(name)                                                     \
	(__builtin_expect(real.name != NULL, 1) ? real.name             \
						: (real_resolve(), real.name))

#endif
