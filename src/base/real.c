/*
 * real.c - looking up the C library's versions of interposed functions
 * (see real.h).
 */
#define _GNU_SOURCE
#include "real.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <unistd.h>

struct real_functions real;

#define LOOK_UP(field, symbol)                                           \
	__atomic_store_n((void **)&real.field, dlsym(RTLD_NEXT, symbol), \
			 __ATOMIC_RELEASE)

#define LOOK_UP_VERSION(field, symbol, version)                          \
	do {                                                             \
		void *p_ = dlvsym(RTLD_NEXT, symbol, version);           \
		__atomic_store_n((void **)&real.field,                   \
				 p_ ? p_ : dlsym(RTLD_NEXT, symbol),     \
				 __ATOMIC_RELEASE);                      \
	} while (0)

static void resolve_once(void)
{
	LOOK_UP(read, "read");
	LOOK_UP(pread, "pread");
	LOOK_UP(pread64, "pread64");
	LOOK_UP(readv, "readv");
	LOOK_UP(preadv, "preadv");
	LOOK_UP(preadv64, "preadv64");
	LOOK_UP(preadv2, "preadv2");
	LOOK_UP(preadv64v2, "preadv64v2");
	LOOK_UP(recv, "recv");
	LOOK_UP(recvfrom, "recvfrom");
	LOOK_UP(recvmsg, "recvmsg");
	LOOK_UP(read_chk, "__read_chk");
	LOOK_UP(pread_chk, "__pread_chk");
	LOOK_UP(pread64_chk, "__pread64_chk");
	LOOK_UP(recv_chk, "__recv_chk");
	LOOK_UP(recvfrom_chk, "__recvfrom_chk");
	LOOK_UP(fread, "fread");
	LOOK_UP(fread_unlocked, "fread_unlocked");
	LOOK_UP(fread_chk, "__fread_chk");
	LOOK_UP(fread_unlocked_chk, "__fread_unlocked_chk");
	LOOK_UP(fgets, "fgets");
	LOOK_UP(fgets_unlocked, "fgets_unlocked");
	LOOK_UP(fgets_chk, "__fgets_chk");
	LOOK_UP(fgets_unlocked_chk, "__fgets_unlocked_chk");
	LOOK_UP(getline, "getline");
	LOOK_UP(getdelim, "getdelim");
	LOOK_UP(getdelim_internal, "__getdelim");
	LOOK_UP(write, "write");
	LOOK_UP(pwrite, "pwrite");
	LOOK_UP(pwrite64, "pwrite64");
	LOOK_UP(writev, "writev");
	LOOK_UP(pwritev, "pwritev");
	LOOK_UP(pwritev64, "pwritev64");
	LOOK_UP(pwritev2, "pwritev2");
	LOOK_UP(pwritev64v2, "pwritev64v2");
	LOOK_UP(send, "send");
	LOOK_UP(sendto, "sendto");
	LOOK_UP(sendmsg, "sendmsg");
	LOOK_UP(fwrite, "fwrite");
	LOOK_UP(fwrite_unlocked, "fwrite_unlocked");
	LOOK_UP(fputs, "fputs");
	LOOK_UP(fputs_unlocked, "fputs_unlocked");
	LOOK_UP(pthread_create, "pthread_create");
	LOOK_UP(execve, "execve");
	LOOK_UP(execv, "execv");
	LOOK_UP(execvp, "execvp");
	LOOK_UP(execvpe, "execvpe");
	LOOK_UP(fexecve, "fexecve");
	LOOK_UP(exit_now, "_exit");
	LOOK_UP(exit_now_c99, "_Exit");
	LOOK_UP(sigaction, "sigaction");
	LOOK_UP(signal, "signal");
	LOOK_UP(sigprocmask, "sigprocmask");
	LOOK_UP(pthread_sigmask, "pthread_sigmask");
	LOOK_UP(sigaltstack, "sigaltstack");
	LOOK_UP(prctl, "prctl");
	LOOK_UP(chroot, "chroot");
	LOOK_UP(syscall, "syscall");
	LOOK_UP(dlclose, "dlclose");
	LOOK_UP(longjmp, "longjmp");
	LOOK_UP(longjmp_bsd, "_longjmp");
	LOOK_UP(siglongjmp, "siglongjmp");
	LOOK_UP(longjmp_chk, "__longjmp_chk");
	LOOK_UP(poll, "poll");
	LOOK_UP(select, "select");
	LOOK_UP(epoll_wait, "epoll_wait");
	LOOK_UP(nanosleep, "nanosleep");
	LOOK_UP(clock_nanosleep, "clock_nanosleep");
	LOOK_UP(sleep, "sleep");
	LOOK_UP(sem_wait, "sem_wait");
	LOOK_UP(sem_timedwait, "sem_timedwait");
	LOOK_UP(pthread_mutex_lock, "pthread_mutex_lock");
	LOOK_UP(pthread_join, "pthread_join");
	LOOK_UP(pthread_barrier_wait, "pthread_barrier_wait");
	LOOK_UP(accept, "accept");
	LOOK_UP(accept4, "accept4");
	LOOK_UP(connect, "connect");
	/* Plain dlsym finds the condition variables of glibc 2.2.5, kept for
	 * old binaries, which are not the ones programs use today. */
	LOOK_UP_VERSION(pthread_cond_wait, "pthread_cond_wait", "GLIBC_2.3.2");
	LOOK_UP_VERSION(pthread_cond_timedwait, "pthread_cond_timedwait",
			"GLIBC_2.3.2");
	LOOK_UP(dlopen, "dlopen");
	LOOK_UP(mmap, "mmap");
	LOOK_UP(mmap64, "mmap64");
	LOOK_UP(munmap, "munmap");
	LOOK_UP(mremap, "mremap");
	LOOK_UP(madvise, "madvise");
	LOOK_UP(brk, "brk");
	LOOK_UP(sbrk, "sbrk");
	LOOK_UP(dl_iterate_phdr, "dl_iterate_phdr");
}

void real_resolve(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, resolve_once);
}
