#!/bin/bash
# tests/servers/mariadb.sh TRMS SCRATCH [SECONDS] - MariaDB under
# mariadb-slap at 1, 8 and 32 clients over 127.0.0.1, natively, under
# `trms run` and under `trms run -F 1000`.
#
# mariadb-install-db makes a data directory below SCRATCH (once, natively);
# mariadbd runs in the foreground on it, listening on 127.0.0.1 and on a
# socket of its own.  Run as root it becomes the mysql user (--user=mysql,
# as Debian's packaging runs it; root where there is no such user), so its
# data directory belongs to that user.  Commits are written to the log but
# not flushed to disk each time (innodb_flush_log_at_trx_commit=2): the
# measurement is the server's work, not the disk's.  Load: mariadb-slap,
# generated SQL, mixed (inserts, and selects that scan the table the
# inserts grow), 2,000 queries per second of SECONDS (default 2) at each
# client count, in every mode.  Then a table of 20,000 rows is written
# and summed (count, sum, SHA1 of the rows in order) and the answer must be
# native's.  Stopped with `mariadb-admin shutdown`.
# Asserts: mariadb-slap ran without error, the answers as natively, exit
# status 0 as natively, and under trms a readable profile of the server.
# Prints the throughput ratios.  Exit status 77 if a MariaDB program is
# missing.
set -eu
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/servers/lib.sh
. "$here/lib.sh"

mariadb_variants() { echo -; }
mariadb_loads() { echo 1-client 8-clients 32-clients; }

# mariadb_prepare: the data directory, made once.
mariadb_prepare() {
	mdb=$work/mariadb
	mkdir -p "$mdb/run"
	mdb_user=()
	if [ "$(id -u)" -eq 0 ]; then
		if id mysql >/dev/null 2>&1; then
			mdb_user=(--user=mysql)
			chown mysql: "$mdb" "$mdb/run"
		else
			mdb_user=(--user=root)
		fi
	fi
	mdb_sock=$mdb/run/mysqld.sock
	# A socket's path has room for 107 bytes.
	if [ ${#mdb_sock} -gt 100 ]; then
		mdb_sockdir=$(mktemp -d "${TMPDIR:-/tmp}/trms-mariadb.XXXXXX")
		chmod 755 "$mdb_sockdir"
		[ ${#mdb_user[@]} -eq 0 ] || chown "${mdb_user[0]#--user=}" "$mdb_sockdir"
		mdb_sock=$mdb_sockdir/mysqld.sock
		srv_remove+=("$mdb_sockdir")
	fi
	if ! timeout -k 5 180 mariadb-install-db --no-defaults \
		--datadir="$mdb/data" ${mdb_user[@]+"${mdb_user[@]}"} \
		--auth-root-authentication-method=normal --skip-test-db \
		--innodb-log-file-size=32M \
		>"$mdb/install.log" 2>&1; then
		srv_fail "mariadb-install-db failed:"
		tail -n 10 "$mdb/install.log" | sed 's/^/    /'
		return 1
	fi
	mdb_answer=""
}

mariadb_admin() {
	timeout -k 2 "$1" mariadb-admin --no-defaults --socket="$mdb_sock" \
		-uroot "${@:2}"
}

mariadb_start() {
	srv_start_on_free_port 90 mariadb_ping mariadb_launch "$1" || {
		srv_error="not answering on $mdb_sock"
		return 1
	}
}

mariadb_ping() {
	mariadb_admin 5 ping
}

# mariadb_launch MODE PORT
mariadb_launch() {
	mdb_port=$2
	srv_logs=$mdb/run/error.$1.log
	srv_launch "$1" "$mdb/stderr.$1.log" \
		mariadbd --no-defaults --datadir="$mdb/data" \
		${mdb_user[@]+"${mdb_user[@]}"} --socket="$mdb_sock" \
		--port="$mdb_port" --bind-address=127.0.0.1 \
		--pid-file="$mdb/run/mysqld.pid" --log-error="$srv_logs" \
		--skip-name-resolve --innodb-log-file-size=32M \
		--innodb-flush-log-at-trx-commit=2
}

# mariadb_load N-client(s) SECONDS
mariadb_load() {
	local clients=${1%%-*} out=$work/slap.out q secs rate st
	srv_amount "mariadb-$1" "$2" 2000
	q=$srv_n
	timeout -k 5 $((60 + 20 * $2)) mariadb-slap --no-defaults \
		-h 127.0.0.1 -P "$mdb_port" -uroot --concurrency="$clients" \
		--number-of-queries="$q" --auto-generate-sql \
		--auto-generate-sql-load-type=mixed --iterations=1 \
		>"$out" 2>"$out.err" && st=0 || st=$?
	if [ $st -ne 0 ]; then
		srv_error="mariadb-slap failed (status $st$([ $st = 124 ] && echo ', timed out')): $(cat "$out.err" "$out" | tail -n 3 | tr '\n' ' ')"
		return 1
	fi
	if [ -s "$out.err" ]; then
		srv_error="mariadb-slap: $(head -n 3 "$out.err" | tr '\n' ' ')"
		return 1
	fi
	secs=$(sed -n 's/.*Average number of seconds to run all queries: *\([0-9.]*\).*/\1/p' "$out")
	rate=$(awk -v q="$q" -v s="$secs" 'BEGIN { if (s > 0) printf "%.1f", q / s }')
	if [ -z "$rate" ]; then
		srv_error="mariadb-slap printed no time: $(tr '\n' ' ' <"$out")"
		return 1
	fi
	srv_measured "mariadb-$1" "$rate"
	srv_load_rate=$rate
	srv_load_note="mariadb-slap $clients client(s), $q queries in $secs s: $rate queries/s, no errors"
}

# mariadb_check: write a table and read it back; the answer must be what
# the native server answered (and the count and sum the right ones).
mariadb_check() {
	local answer
	answer=$(timeout -k 2 60 mariadb --no-defaults -h 127.0.0.1 \
		-P "$mdb_port" -uroot -N -B -e "
		CREATE DATABASE IF NOT EXISTS trms_check; USE trms_check;
		CREATE OR REPLACE TABLE t (a INT PRIMARY KEY, b CHAR(40))
			ENGINE=InnoDB;
		INSERT INTO t SELECT seq, SHA1(seq) FROM seq_1_to_20000;
		SET SESSION group_concat_max_len = 4194304;
		SELECT COUNT(*), SUM(a), SHA1(GROUP_CONCAT(b ORDER BY a SEPARATOR ''))
			FROM t;
		DROP DATABASE trms_check;" 2>&1) || {
		srv_error="the query failed: $(echo "$answer" | head -n 3 | tr '\n' ' ')"
		return 1
	}
	case $answer in
	"20000	200010000	"*) ;;
	*) srv_error="count and sum: $answer"; return 1 ;;
	esac
	[ -n "$mdb_answer" ] || mdb_answer=$answer
	if [ "$answer" != "$mdb_answer" ]; then
		srv_error="$answer, natively $mdb_answer"
		return 1
	fi
}

mariadb_stop() {
	mariadb_admin 60 shutdown >/dev/null 2>&1 || :
}

mariadb_main() {
	if [ $# -lt 2 ]; then
		echo "usage: $0 TRMS SCRATCH [SECONDS]" >&2
		exit 2
	fi
	srv_init mariadb "$2" "$1"
	srv_need mariadb-install-db mariadbd mariadb-admin mariadb mariadb-slap
	if ! mariadb_prepare; then
		srv_finish || exit 1
	fi
	srv_test mariadb "${3:-2}"
	srv_finish
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	mariadb_main "$@"
fi
