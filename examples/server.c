/*
 * server.c - a multithreaded request/response server and its clients over
 * loopback TCP, in one process.
 *
 * The server listens on 127.0.0.1 (port 0: the kernel picks a free one,
 * getsockname says which, and the clients connect there), accepts C
 * connections and serves each in its own thread.  C client threads send R requests in all
 * (request i, 0 <= i < R, goes over connection i % C): a 4-byte length n
 * in network order, then n bytes, where n = 1 + (i * 389) % 4096 (all
 * different for R <= 4096).  The response is the n bytes in reverse order;
 * the clients check every one, and the program exits 0 when all are right.
 *
 * Each request is handled in one activation of the region "request": once
 * the length has arrived, it reads the length, recv()s the n bytes into
 * its input buffer and reads them, writes the response and send()s it.
 * recv() is a kernel write of the bytes received, so with the default
 * granularity (K = 4) each request of n bytes has exactly
 *
 *	trms = rms = induced_external = 1 + ceil(n / 4)
 *	(the length's cell and the request's cells, all filled by the
 *	kernel; the response buffer that send() reads was written by the
 *	activation itself just before, so it is not new input)
 *
 * R is argv[1] (default 200), C argv[2] (default 4).
 *
 *   trms run -c events -o server.trms -- ./server 200 4
 *   trms report --tuples server.trms
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "trms_weak.h"

#define MAX_REQUEST 4096
#define MAX_CONN 64

static long requests = 200;
static long conns = 4;
static int listener;
static int connection_fd[MAX_CONN];
static struct sockaddr_in address;

static size_t request_size(long i)
{
	return 1 + (size_t)(i * 389) % MAX_REQUEST;
}

/* 0: @len bytes received; 1: the peer closed before the first; -1: error
 * or closed in the middle. */
static int recv_all(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = recv(fd, (char *)buf + got, len - got, 0);
		if (n == 0)
			return got ? -1 : 1;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		got += (size_t)n;
	}
	return 0;
}

static int send_all(int fd, const void *buf, size_t len)
{
	size_t sent = 0;

	while (sent < len) {
		ssize_t n = send(fd, (const char *)buf + sent, len - sent,
				 MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		sent += (size_t)n;
	}
	return 0;
}

/* One request whose length @hdr has arrived: 0 if answered. */
static int handle_request(int fd, const uint32_t *hdr, unsigned char *in,
			  unsigned char *out)
{
	TRMS_SCOPED_REGION("request");
	size_t n;

	trms_read(hdr, sizeof(*hdr));
	n = ntohl(*hdr);
	if (n == 0 || n > MAX_REQUEST || recv_all(fd, in, n))
		return -1;
	trms_read(in, n);
	for (size_t i = 0; i < n; i++)
		out[i] = in[n - 1 - i];
	trms_write(out, n);
	return send_all(fd, out, n);
}

static void *serve(void *arg)
{
	_Alignas(64) unsigned char in[MAX_REQUEST], out[MAX_REQUEST];
	long index = (long)(intptr_t)arg;
	int fd = connection_fd[index];
	uint32_t hdr;
	char name[32];

	snprintf(name, sizeof(name), "connection %ld", index);
	trms_thread_name(name);
	for (;;) {
		/* Wait for the next request's length outside the region:
		 * the time spent waiting is not the request's. */
		int rc = recv_all(fd, &hdr, sizeof(hdr));
		if (rc == 1)
			break; /* the client is done */
		if (rc || handle_request(fd, &hdr, in, out)) {
			fprintf(stderr, "server: a request failed\n");
			break;
		}
	}
	close(fd);
	return NULL;
}

static void *accept_connections(void *arg)
{
	pthread_t threads[MAX_CONN];
	long accepted = 0;

	(void)arg;
	trms_thread_name("acceptor");
	while (accepted < conns) {
		int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR)
				continue;
			break; /* shut down: a client could not connect */
		}
		connection_fd[accepted] = fd;
		if (pthread_create(&threads[accepted], NULL, serve,
				   (void *)(intptr_t)accepted)) {
			close(fd);
			break;
		}
		accepted++;
	}
	for (long i = 0; i < accepted; i++)
		pthread_join(threads[i], NULL);
	return NULL;
}

/* Client number @arg: requests arg, arg + C, arg + 2C, ...; returns the
 * number of correct responses. */
static void *client(void *arg)
{
	unsigned char msg[4 + MAX_REQUEST], response[MAX_REQUEST];
	long c = (long)(intptr_t)arg, correct = 0;
	int one = 1;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	char name[32];

	snprintf(name, sizeof(name), "client %ld", c);
	trms_thread_name(name);
	if (fd < 0 || connect(fd, (struct sockaddr *)&address,
			      sizeof(address))) {
		perror("server: client: connect");
		if (fd >= 0)
			close(fd);
		return (void *)0;
	}
	/* Each request goes in one send(); no Nagle delay between them. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	for (long i = c; i < requests; i += conns) {
		size_t n = request_size(i);
		uint32_t len = htonl((uint32_t)n);

		memcpy(msg, &len, sizeof(len));
		for (size_t j = 0; j < n; j++)
			msg[4 + j] = (unsigned char)(i * 7 + j * 13);
		if (send_all(fd, msg, 4 + n) ||
		    recv_all(fd, response, n) != 0) {
			fprintf(stderr, "server: client: request %ld failed\n",
				i);
			break;
		}
		size_t j = 0;
		while (j < n && response[j] == msg[4 + n - 1 - j])
			j++;
		if (j < n) {
			fprintf(stderr, "server: wrong response to request "
					"%ld\n", i);
			break;
		}
		correct++;
	}
	close(fd);
	return (void *)(intptr_t)correct;
}

static long parse(const char *s, long min, long max)
{
	char *end;
	long v = strtol(s, &end, 10);

	return *s && !*end && v >= min && v <= max ? v : -1;
}

int main(int argc, char **argv)
{
	pthread_t acceptor, clients[MAX_CONN];
	socklen_t len = sizeof(address);
	long correct = 0, started = 0;

	if (!TRMS_API_LOADED()) {
		fprintf(stderr, "server: libtrms is not loaded: run "
				"`trms run -- %s`\n", argv[0]);
		return 2;
	}
	if (argc > 1)
		requests = parse(argv[1], 1, 1000000);
	if (argc > 2)
		conns = parse(argv[2], 1, MAX_CONN);
	if (argc > 3 || requests < 0 || conns < 0) {
		fprintf(stderr, "usage: server [REQUESTS [CONNECTIONS]]  "
				"(1..10^6, 1..%d)\n", MAX_CONN);
		return 2;
	}

	address.sin_family = AF_INET;
	address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	address.sin_port = 0;
	listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (listener < 0 ||
	    bind(listener, (struct sockaddr *)&address, sizeof(address)) ||
	    listen(listener, (int)conns) ||
	    getsockname(listener, (struct sockaddr *)&address, &len)) {
		perror("server: listen");
		return 1;
	}
	if (pthread_create(&acceptor, NULL, accept_connections, NULL)) {
		fprintf(stderr, "server: cannot create a thread\n");
		return 1;
	}
	for (; started < conns; started++)
		if (pthread_create(&clients[started], NULL, client,
				   (void *)(intptr_t)started))
			break;
	for (long c = 0; c < started; c++) {
		void *ok;
		pthread_join(clients[c], &ok);
		correct += (long)(intptr_t)ok;
	}
	/* Wakes the acceptor if a client never connected. */
	shutdown(listener, SHUT_RDWR);
	pthread_join(acceptor, NULL);
	close(listener);
	if (correct != requests) {
		fprintf(stderr, "server: %ld of %ld responses correct\n",
			correct, requests);
		return 1;
	}
	printf("%ld requests over %ld connections: all responses correct\n",
	       requests, conns);
	return 0;
}
