/*
 * hostile_seccomp.c MODE - a program that locks itself in a seccomp
 * sandbox while it is being sampled, then works on inside it.
 *
 *   strict   prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT): read, write,
 *            exit and sigreturn only; ends with the exit system call
 *   filter   prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER): read, write,
 *            exit and exit_group only, anything else kills; ends with
 *            _exit(0)
 *   exit     the same filter, installed with syscall(SYS_seccomp) as
 *            libseccomp does; ends with exit(0) (destructors run)
 *   tsync    two threads; the filter with SECCOMP_FILTER_FLAG_TSYNC
 *            holds both; both work on; ends with _exit(0)
 *   thread   a second thread installs a filter for itself alone (read,
 *            write, exit, futex, madvise, munmap, rt_sigreturn,
 *            rt_sigprocmask: what glibc needs to end a thread), works
 *            and ends; the first works on unsandboxed and returns
 *
 * Prints "sandboxed ok" and exits 0 when nothing killed it.
 */
#define _GNU_SOURCE
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;

/* CPU time, without a system call (the sandbox forbids clock_gettime's
 * fallback): a fixed amount of arithmetic, about @ms milliseconds. */
static void burn(unsigned ms)
{
	for (unsigned long i = 0; i < (unsigned long)ms * 400000ul; i++)
		sink += (double)i * 0.5;
}

static void say(const char *text)
{
	ssize_t rc = write(1, text, strlen(text));
	(void)rc;
}

#define ALLOW(nr)                                                          \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1),                   \
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

static struct sock_filter strict_filter[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	ALLOW(__NR_read),
	ALLOW(__NR_write),
	ALLOW(__NR_exit),
	ALLOW(__NR_exit_group),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
};

static struct sock_filter thread_filter[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	ALLOW(__NR_read),
	ALLOW(__NR_write),
	ALLOW(__NR_exit),
	ALLOW(__NR_futex),
	ALLOW(__NR_madvise),
	ALLOW(__NR_munmap),
	ALLOW(__NR_rt_sigreturn),
	ALLOW(__NR_rt_sigprocmask),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
};

static struct sock_fprog program(struct sock_filter *f, size_t n)
{
	struct sock_fprog p = { (unsigned short)n, f };
	return p;
}

#define PROGRAM(f) program((f), sizeof(f) / sizeof((f)[0]))

static void no_new_privs(void)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		perror("PR_SET_NO_NEW_PRIVS");
		exit(2);
	}
}

static volatile int stop;

static void *spinner(void *arg)
{
	(void)arg;
	while (!stop)
		burn(1);
	return NULL;
}

static void *sandboxed_thread(void *arg)
{
	struct sock_fprog p = PROGRAM(thread_filter);

	(void)arg;
	burn(100);
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p, 0, 0)) {
		perror("PR_SET_SECCOMP");
		exit(2);
	}
	burn(300);
	say("thread done\n");
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	struct sock_fprog p = PROGRAM(strict_filter);
	pthread_t thread;

	setvbuf(stdout, NULL, _IONBF, 0);
	burn(200);
	if (!strcmp(mode, "strict")) {
		if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0))
			return perror("PR_SET_SECCOMP"), 2;
		burn(300);
		say("sandboxed ok\n");
		syscall(__NR_exit, 0);
	} else if (!strcmp(mode, "filter")) {
		no_new_privs();
		if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p, 0, 0))
			return perror("PR_SET_SECCOMP"), 2;
		burn(300);
		say("sandboxed ok\n");
		_exit(0);
	} else if (!strcmp(mode, "exit")) {
		no_new_privs();
		if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &p))
			return perror("seccomp"), 2;
		burn(300);
		say("sandboxed ok\n");
		exit(0);
	} else if (!strcmp(mode, "tsync")) {
		no_new_privs();
		pthread_create(&thread, NULL, spinner, NULL);
		burn(100);
		if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
			    SECCOMP_FILTER_FLAG_TSYNC, &p))
			return perror("seccomp"), 2;
		burn(300);
		say("sandboxed ok\n");
		_exit(0);
	} else if (!strcmp(mode, "thread")) {
		no_new_privs();
		pthread_create(&thread, NULL, sandboxed_thread, NULL);
		burn(100);
		pthread_join(thread, NULL);
		burn(100);
		say("sandboxed ok\n");
		return 0;
	}
	fprintf(stderr, "usage: hostile-seccomp strict|filter|exit|tsync|thread\n");
	return 2;
}
