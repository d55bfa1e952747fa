#!/bin/bash
# tests/servers/nginx.sh TRMS SCRATCH [SECONDS] - nginx serving static files
# over 127.0.0.1, natively, under `trms run` and under `trms run -F 1000`.
#
# nginx runs in the foreground (daemon off) with a master and two workers,
# from a prefix of its own in a scratch directory below SCRATCH; run as
# root, its workers become nobody (`user nobody`), as in production.
# sendfile is off, so that every byte served goes through read() and
# write() (or writev()) in the worker.  Loads: wrk for SECONDS (default 3)
# on a 100 KiB file and on a 4 KiB file, keep-alive, 16 connections;
# then ab (keep-alive, a fixed number of requests) and a plain request
# whose body is compared with the file.  Stopped with `nginx -s quit`
# (SIGQUIT to the master: the workers finish and exit).
# Asserts: no error from wrk or ab (non-2xx, failed requests, socket
# errors), bodies identical, exit status 0 as natively, and under trms a
# readable profile of every process (master and workers).  Prints the
# throughput ratios.  Exit status 77 if nginx, wrk or ab is missing.
set -eu
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/servers/lib.sh
. "$here/lib.sh"

nginx_variants() { echo -; }
nginx_loads() { echo 100KiB 4KiB; }

# nginx_prepare: the prefix and the files served (html/), with copies that
# the answers are compared with (expected/).
nginx_prepare() {
	ngx=$work/nginx
	mkdir -p "$ngx/html" "$ngx/expected" "$ngx/logs" "$ngx/tmp"
	srv_logs=$ngx/logs/error.log
	head -c 102400 /dev/urandom >"$ngx/expected/100KiB.bin"
	head -c 4096 /dev/urandom >"$ngx/expected/4KiB.bin"
	cp "$ngx/expected/"*.bin "$ngx/html/"
	chmod -R a+rX "$ngx/html"
}

nginx_start() {
	srv_start_on_free_port 30 srv_tcp_open nginx_launch "$1" || {
		srv_error="not serving on 127.0.0.1:$ngx_port"
		return 1
	}
}

# nginx_launch MODE PORT: the configuration for PORT, and nginx.
nginx_launch() {
	local user=""
	ngx_port=$2
	if [ "$(id -u)" -eq 0 ]; then
		user="user nobody $(id -gn nobody);"
	fi
	cat >"$ngx/nginx.conf" <<EOF
$user
worker_processes 2;
daemon off;
pid $ngx/nginx.pid;
error_log $ngx/logs/error.log;
events { worker_connections 1024; }
http {
	access_log off;
	sendfile off;
	keepalive_requests 1000000;
	client_body_temp_path $ngx/tmp/body;
	proxy_temp_path $ngx/tmp/proxy;
	fastcgi_temp_path $ngx/tmp/fastcgi;
	uwsgi_temp_path $ngx/tmp/uwsgi;
	scgi_temp_path $ngx/tmp/scgi;
	server {
		listen 127.0.0.1:$ngx_port;
		root $ngx/html;
	}
}
EOF
	srv_launch "$1" "$ngx/logs/stderr.$1.log" \
		nginx -p "$ngx" -c "$ngx/nginx.conf" -e "$ngx/logs/error.log"
}

# nginx_load FILE SECONDS: wrk, 2 threads, 16 keep-alive connections.
nginx_load() {
	local file=$1 seconds=$2 out=$work/wrk.out rps st
	timeout -k 5 $((seconds + 30)) wrk -t 2 -c 16 -d "${seconds}s" \
		--timeout 10s "http://127.0.0.1:$ngx_port/$file.bin" \
		>"$out" 2>&1 && st=0 || st=$?
	if [ $st -ne 0 ]; then
		srv_error="wrk failed (status $st): $(tail -n 3 "$out" | tr '\n' ' ')"
		return 1
	fi
	rps=$(sed -n 's/^Requests\/sec: *//p' "$out")
	if grep -q -e 'Non-2xx' -e 'Socket errors' "$out"; then
		srv_error="wrk: $(grep -e 'Non-2xx' -e 'Socket errors' "$out" | tr '\n' ' ')"
		return 1
	fi
	case $rps in
	'' | 0 | 0.00) srv_error="wrk: no request answered: $(tr '\n' ' ' <"$out")"
		return 1 ;;
	esac
	srv_load_rate=$rps
	srv_load_note="wrk ${seconds} s: $rps requests/s, no errors"
}

# nginx_check: ab on each file (keep-alive, 2000 requests, 8 at a time):
# every request completed, none failed (ab also counts a length that
# differs from the first response's), none non-2xx; and one plain HTTP/1.0
# request per file whose body is the file.
nginx_check() {
	local file size out=$work/ab.out resp=$work/response head
	for file in 100KiB 4KiB; do
		size=$(stat -c %s "$ngx/expected/$file.bin")
		if ! timeout -k 5 60 ab -k -n 2000 -c 8 -s 10 \
			"http://127.0.0.1:$ngx_port/$file.bin" >"$out" 2>&1; then
			srv_error="ab on $file failed: $(tail -n 2 "$out" | tr '\n' ' ')"
			return 1
		fi
		if ! grep -q '^Complete requests: *2000$' "$out" ||
			! grep -q '^Failed requests: *0$' "$out" ||
			grep -q '^Non-2xx responses' "$out" ||
			! grep -q "^Document Length: *$size bytes" "$out"; then
			srv_error="ab on $file: $(grep -e '^Complete requests' -e '^Failed' -e '^Non-2xx' -e '^Document Length' "$out" | tr -s ' ' | tr '\n' ' ')"
			return 1
		fi
		# shellcheck disable=SC2016 # $1 and $2 of the inner shell
		if ! timeout 10 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" &&
			printf "GET /%s HTTP/1.0\r\nHost: localhost\r\n\r\n" "$2" >&3 &&
			cat <&3' _ "$ngx_port" "$file.bin" >"$resp" 2>/dev/null; then
			srv_error="no answer to a plain GET /$file.bin"
			return 1
		fi
		head=$(head -n 1 "$resp" | tr -d '\r')
		case $head in
		"HTTP/1."?" 200 OK") ;;
		*) srv_error="GET /$file.bin: $head"; return 1 ;;
		esac
		if [ "$(wc -c <"$resp")" -le "$size" ] ||
			! tail -c "$size" "$resp" | cmp -s - "$ngx/expected/$file.bin"; then
			srv_error="GET /$file.bin: the body is not the file"
			return 1
		fi
	done
}

nginx_stop() {
	timeout -k 5 20 nginx -p "$ngx" -c "$ngx/nginx.conf" \
		-e "$ngx/logs/error.log" -s quit >/dev/null 2>&1
}

nginx_main() {
	if [ $# -lt 2 ]; then
		echo "usage: $0 TRMS SCRATCH [SECONDS]" >&2
		exit 2
	fi
	srv_init nginx "$2" "$1"
	srv_need nginx wrk ab
	nginx_prepare
	srv_test nginx "${3:-3}"
	srv_finish
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	nginx_main "$@"
fi
