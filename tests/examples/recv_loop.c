/*
 * recv_loop.c - a program for test_examples: M messages of 1, 2, ..., M
 * bytes, sent by one thread over a SOCK_SEQPACKET socketpair (which keeps
 * them apart: one recv() returns one message), received by the main thread
 * into one buffer inside one activation of the region "recv_loop", which
 * reads (trms_read) what each recv() returned.  M is argv[1] (1..256).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <trms.h>

#define MAX_M 256

static int sv[2];
static long m;

static void *sender(void *arg)
{
	static unsigned char chunk[MAX_M];

	(void)arg;
	for (long k = 1; k <= m; k++) {
		for (long i = 0; i < k; i++)
			chunk[i] = (unsigned char)(k + i);
		if (send(sv[0], chunk, (size_t)k, MSG_NOSIGNAL) != k) {
			perror("recv_loop: send");
			exit(1);
		}
	}
	close(sv[0]);
	return NULL;
}

int main(int argc, char **argv)
{
	static _Alignas(64) unsigned char buf[MAX_M];
	pthread_t thread;
	long messages = 0, bytes = 0, wrong = 0;
	ssize_t n;

	m = argc > 1 ? atol(argv[1]) : 100;
	if (m < 1 || m > MAX_M) {
		fprintf(stderr, "usage: recv_loop [M]  (1..%d)\n", MAX_M);
		return 2;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		perror("recv_loop: socketpair");
		return 1;
	}
	if (pthread_create(&thread, NULL, sender, NULL)) {
		fprintf(stderr, "recv_loop: cannot create a thread\n");
		return 1;
	}
	TRMS_REGION("recv_loop")
	{
		while ((n = recv(sv[1], buf, sizeof(buf), 0)) > 0) {
			trms_read(buf, (size_t)n);
			messages++;
			bytes += n;
			/* message k is k bytes, the last one 2k - 1 */
			wrong += n != messages ||
				 buf[n - 1] != (unsigned char)(2 * n - 1);
		}
	}
	if (n < 0)
		perror("recv_loop: recv");
	pthread_join(thread, NULL);
	close(sv[1]);
	if (n < 0 || messages != m || bytes != m * (m + 1) / 2 || wrong) {
		fprintf(stderr, "recv_loop: got %ld messages, %ld bytes, %ld "
				"wrong\n", messages, bytes, wrong);
		return 1;
	}
	printf("%ld messages, %ld bytes\n", messages, bytes);
	return 0;
}
