# shellcheck shell=bash
# tests/servers/lib.sh - what the real-server tests (tests/servers/*.sh) and
# bench/servers.sh share: a scratch directory, starting a server natively or
# under `trms run` in a process group of its own, waiting for it (always
# with a deadline), the processes of its tree, its profiles, and the
# PASS/FAIL lines.  Sourced by bash scripts that `set -eu`.
#
# The modes a server runs in:
#   native    the server alone
#   trms      under `trms run` at the default sampling rate
#   trms-1k   under `trms run -F 1000`
#   trms-1k-tick  the same with TRMS_SAMPLE_TIMER=tick (the CPU-time
#             timer, not the perf_event task clock: docs/sampling.md)
#   trms-interval  under `trms run --interval 1`: a window of the profile
#             written every second (bench/servers.sh only, SERVERS_MODES)
# Under trms the profiles go to a directory of their own, given to
# `trms run -o DIR/%e.%p.trms`; they are looked for anywhere below DIR and
# matched to processes by their "meta pid" line, not by name.

srv_modes="native trms trms-1k"

# The settings of the library must not come from whoever runs the tests.
unset LD_PRELOAD TRMS_OUTPUT TRMS_VERBOSE TRMS_OFF TRMS_GRANULARITY \
	TRMS_COST TRMS_SAMPLE_HZ TRMS_SAMPLE_CLOCK TRMS_SAMPLE_SIGNAL \
	TRMS_SAMPLE_TRAP TRMS_SAMPLE_TIMER TRMS_RUN_REPORT
export LC_ALL=C

srv_failures=0
srv_passes=0
srv_groups=()   # process groups started here, killed on exit if left
srv_remove=()   # what to remove on exit besides the scratch directory
srv_seq=0

# srv_init NAME PARENT TRMS: a scratch directory PARENT/NAME.XXXXXX (kept
# when something failed, removed otherwise), TRMS the trms program; the
# exit trap kills whatever was started and is still running.
srv_init() {
	srv_name=$1
	mkdir -p "$2"
	# The scratch directory of the last run is kept when it failed; only
	# the last one.
	rm -rf "$2/$1".??????
	# Absolute: servers change directory.
	TRMS=$(readlink -f "$3")
	work=$(mktemp -d "$(cd "$2" && pwd)/$1.XXXXXX")
	# Servers that drop privileges (nginx's workers, mariadbd) read their
	# files below it.
	chmod 755 "$work"
	trap srv_cleanup EXIT
	trap 'exit 130' INT TERM HUP
	# `trms run --all`, where it exists, keeps the profiles of processes
	# that recorded nothing: every process of the server must have one.
	srv_trms_all=()
	if "$TRMS" run --help 2>/dev/null | grep -q -e '--all'; then
		srv_trms_all=(--all)
	fi
}

srv_cleanup() {
	local status=$? g
	trap - EXIT
	for g in ${srv_groups[@]+"${srv_groups[@]}"}; do
		kill -0 -- "-$g" 2>/dev/null || continue
		echo "cleanup: process group $g still running, SIGTERM" >&2
		kill -TERM -- "-$g" 2>/dev/null || :
	done
	for g in ${srv_groups[@]+"${srv_groups[@]}"}; do
		local i=0
		while kill -0 -- "-$g" 2>/dev/null && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		kill -KILL -- "-$g" 2>/dev/null || :
	done
	rm -rf ${srv_remove[@]+"${srv_remove[@]}"}
	if [ -n "${work:-}" ] && [ -d "$work" ]; then
		if { [ "$status" -eq 0 ] || [ "$status" -eq 77 ]; } &&
			[ -z "${SERVERS_KEEP:-}" ]; then
			rm -rf "$work"
		else
			echo "scratch files kept in $work" >&2
		fi
	fi
	exit "$status"
}

srv_pass() {
	echo "PASS $*"
	srv_passes=$((srv_passes + 1))
}

srv_fail() {
	echo "FAIL $*"
	srv_failures=$((srv_failures + 1))
}

# srv_need PROGRAM...: exit 77 (skipped) unless every PROGRAM is installed.
srv_need() {
	local p
	for p in "$@"; do
		if ! command -v "$p" >/dev/null 2>&1; then
			echo "SKIP $srv_name: $p is not installed (scripts/install-servers installs it)"
			exit 77
		fi
	done
}

# srv_free_port: a TCP port no socket of this machine uses, below the
# ephemeral range (32768-) so that no client's connection takes it.
srv_free_port() {
	local used=" " line port f
	for f in /proc/net/tcp /proc/net/tcp6; do
		[ -r "$f" ] || continue
		while read -r _ line _; do
			port=${line##*:}
			case $port in *[!0-9A-F]* | '') continue ;; esac
			used="$used$((16#$port)) "
		done <"$f"
	done
	while :; do
		port=$((10000 + RANDOM % 22000))
		case $used in *" $port "*) continue ;; esac
		echo "$port"
		return
	done
}

# srv_launch MODE LOG CMD...: start CMD in the background in a process
# group of its own, natively or under `trms run` as MODE says, standard
# output and error into LOG (srv_log; a server that logs elsewhere too
# names that file in srv_logs).  Sets srv_pid (the process started: the
# server, or `trms run`), srv_mode, srv_exe (CMD's executable, symbolic
# links resolved: how the server's processes are told from others) and
# srv_prof (the profile directory, empty natively).
srv_launch() {
	local mode=$1 log=$2
	shift 2
	local -a pre=()
	srv_mode=$mode
	srv_log=$log
	srv_prof=""
	srv_seq=$((srv_seq + 1))
	case $mode in
	native) ;;
	trms | trms-1k | trms-1k-tick | trms-interval)
		srv_prof=$work/profiles-$srv_seq-$mode
		mkdir -p "$srv_prof"
		pre=()
		[ "$mode" = trms-1k-tick ] && pre+=(env TRMS_SAMPLE_TIMER=tick)
		pre+=("$TRMS" run ${srv_trms_all[@]+"${srv_trms_all[@]}"}
			-o "$srv_prof/%e.%p.trms")
		case $mode in trms-1k*) pre+=(-F 1000) ;; esac
		[ "$mode" = trms-interval ] && pre+=(--interval 1)
		pre+=(--)
		;;
	*) echo "srv_launch: unknown mode $mode" >&2; return 2 ;;
	esac
	srv_exe=$(readlink -f "$(command -v "$1")")
	# A background job of a shell without job control is not a group
	# leader: setsid makes the new session without forking, so $! is the
	# process that runs CMD (or trms run).
	setsid ${pre[@]+"${pre[@]}"} "$@" </dev/null >"$log" 2>&1 &
	srv_pid=$!
	srv_groups+=("$srv_pid")
	srv_pids=()
	srv_users=()
}

# srv_running: the process started by srv_launch has not ended (a zombie
# has ended: it waits only for this shell to collect its status).
srv_running() {
	local stat
	stat=$(cat "/proc/$srv_pid/stat" 2>/dev/null) || return 1
	stat=${stat##*) }
	[ "${stat%% *}" != Z ]
}

# srv_wait_ready SECONDS PROBE...: poll PROBE every 0.1 s until it succeeds;
# fails if the server ended or SECONDS passed.
srv_wait_ready() {
	local limit=$(($1 * 10)) i=0
	shift
	while [ $i -lt $limit ]; do
		srv_running || return 1
		if "$@" >/dev/null 2>&1; then
			return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# srv_start_on_free_port SECONDS PROBE LAUNCH [ARG...]: `LAUNCH ARG... PORT`
# starts the server on a free PORT (with srv_launch), `PROBE PORT`
# succeeds once it serves there; waits SECONDS at most.  Should another
# process take the port in between, tries another one (three in all).
srv_start_on_free_port() {
	local seconds=$1 probe=$2 port
	shift 2
	for _ in 1 2 3; do
		port=$(srv_free_port)
		"$@" "$port"
		srv_wait_ready "$seconds" "$probe" "$port" && return 0
		srv_running && return 1
		cat "$srv_log" ${srv_logs:+"$srv_logs"} 2>/dev/null |
			grep -q 'already in use' || return 1
		srv_wait_exit 1
	done
	return 1
}

# srv_tcp_open PORT: something accepts connections on 127.0.0.1:PORT.
srv_tcp_open() {
	# shellcheck disable=SC2016 # $1 of the inner shell
	timeout 2 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1"' _ "$1" 2>/dev/null
}

# srv_collect: add the processes of the server's tree (srv_pid and its
# descendants running srv_exe) to srv_pids, and their users to srv_users.
# Called while the server runs, as often as processes may come and go.
srv_collect() {
	local -A parent=()
	local f line rest p q exe known
	for f in /proc/[0-9]*/stat; do
		line=$(cat "$f" 2>/dev/null) || continue
		rest=${line##*) }
		# rest: state ppid ...
		rest=${rest#* }
		parent[${line%% *}]=${rest%% *}
	done
	for p in "${!parent[@]}"; do
		q=$p
		while [ -n "$q" ] && [ "$q" != "$srv_pid" ] && [ "$q" -gt 1 ]; do
			q=${parent[$q]:-}
		done
		[ "$q" = "$srv_pid" ] || continue
		exe=$(readlink "/proc/$p/exe" 2>/dev/null) || continue
		[ "$exe" = "$srv_exe" ] || continue
		known=no
		for q in ${srv_pids[@]+"${srv_pids[@]}"}; do
			[ "$q" = "$p" ] && known=yes
		done
		[ $known = yes ] && continue
		srv_pids+=("$p")
		srv_users+=("$(stat -c %U "/proc/$p" 2>/dev/null || echo '?')")
	done
}

# srv_wait_exit SECONDS: wait for the process started by srv_launch to end;
# its exit status into srv_status ("timeout" if it did not end in time:
# its group is then killed).  Then waits (a few seconds at most) for the
# rest of its tree.
srv_wait_exit() {
	local limit=$(($1 * 10)) i=0 p
	while srv_running && [ $i -lt $limit ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if srv_running; then
		kill -TERM -- "-$srv_pid" 2>/dev/null || :
		sleep 2
		kill -KILL -- "-$srv_pid" 2>/dev/null || :
		wait "$srv_pid" 2>/dev/null || :
		srv_status=timeout
		return
	fi
	wait "$srv_pid" && srv_status=0 || srv_status=$?
	i=0
	for p in ${srv_pids[@]+"${srv_pids[@]}"}; do
		while [ -e "/proc/$p" ] && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
	done
}

# srv_check_profiles WHAT: under trms, every process of the server
# (srv_pids) left a complete profile below srv_prof that `trms report`
# reads, and no temporary file is left there.  One PASS or FAIL line.
srv_check_profiles() {
	local what=$1 i p f found problems="" files tmps
	[ -n "$srv_prof" ] || return 0
	files=$(find "$srv_prof" -type f -name '*.trms' 2>/dev/null)
	for i in "${!srv_pids[@]}"; do
		p=${srv_pids[$i]}
		found=""
		while IFS= read -r f; do
			[ -n "$f" ] || continue
			if grep -qx "meta pid $p" "$f" 2>/dev/null; then
				found=$f
				break
			fi
		done <<<"$files"
		if [ -z "$found" ]; then
			problems="$problems; no profile of pid $p (user ${srv_users[$i]})"
		elif ! "$TRMS" report "$found" >"$work/report.out" 2>&1; then
			problems="$problems; the profile of pid $p (${found#"$work"/}) is not readable: $(head -n 1 "$work/report.out")"
		fi
	done
	tmps=$(find "$srv_prof" -name '*.tmp*' 2>/dev/null | head -n 3)
	[ -z "$tmps" ] || problems="$problems; temporary files left: $(echo "$tmps" | tr '\n' ' ')"
	if [ -z "$problems" ]; then
		srv_pass "$what: a readable profile for each of its ${#srv_pids[@]} processes (users: $(printf '%s\n' "${srv_users[@]}" | sort | uniq -c | awk '{ printf "%s%s x%s", (NR > 1 ? ", " : ""), $2, $1 }'))"
	else
		srv_fail "$what: profiles: ${problems#; }"
		echo "    profiles found: $(echo "${files:-none}" | sed "s|^$work/||" | tr '\n' ' ')"
		# What the library said, in the server's own logs.
		grep -h 'trms:' "$srv_log" ${srv_logs:+"$srv_logs"} 2>/dev/null |
			sort | uniq -c | sed -n '1,4s/^ */    logged: /p'
	fi
}

# srv_check_exit WHAT EXPECTED: the exit status of the server (srv_status)
# is EXPECTED (native's).
srv_check_exit() {
	if [ "$srv_status" = "$2" ]; then
		srv_pass "$1: stopped cleanly (exit status $srv_status)"
	else
		srv_fail "$1: exit status $srv_status, natively $2"
	fi
}

# srv_amount KEY SECONDS PER_SECOND: how much work (requests, queries) one
# run of load KEY does, into srv_n: SECONDS x PER_SECOND, the same in every
# run, so that runs compare (a load whose table grows, as mariadb-slap's,
# gets slower the longer it runs).  With srv_calibrate=yes (the bench), as
# much as the first native run's rate (srv_measured) does in SECONDS,
# from then on.
declare -A srv_est=()
srv_calibrate=no
srv_amount() {
	case ${srv_est[$1]:-} in
	'') srv_n=$(($2 * $3)) ;;
	fixed:*) srv_n=${srv_est[$1]#fixed:} ;;
	*)
		srv_n=$(awk -v r="${srv_est[$1]}" -v s="$2" 'BEGIN { printf "%d", r * s }')
		[ "$srv_n" -ge 100 ] || srv_n=100
		srv_est[$1]=fixed:$srv_n
		;;
	esac
}
srv_measured() {
	[ "$srv_calibrate" = yes ] && [ "$srv_mode" = native ] &&
		[ -z "${srv_est[$1]:-}" ] && srv_est[$1]=$2
	return 0
}

# srv_rate KEY MODE RATE: record a throughput; srv_ratios prints, for each
# KEY, native's and the ratios of the trms modes to it.
srv_rate() {
	echo "$1 $2 $3" >>"$work/rates"
}

srv_ratios() {
	[ -s "$work/rates" ] || return 0
	echo "throughput, one run each (under trms / native; bench/servers.sh gives medians):"
	awk '{ r[$1, $2] = $3; if (!($1 in seen)) { seen[$1] = 1; keys[++n] = $1 } }
		function ratio(k, m) { return ((k, m) in r && r[k, "native"] > 0) ? sprintf("%.3fx", r[k, m] / r[k, "native"]) : "-" }
		END {
			for (i = 1; i <= n; i++) {
				k = keys[i]
				printf "  %-28s native %9.1f/s   trms %-7s   trms -F 1000 %s\n", k,
					r[k, "native"], ratio(k, "trms"), ratio(k, "trms-1k")
			}
		}' "$work/rates"
}

# srv_test SERVER SECONDS: the test of a server, whose script defines
#   SERVER_variants         the configurations, one lifecycle each ("-": one)
#   SERVER_start MODE VAR   start it (srv_launch) and wait until it serves;
#                           on failure srv_error says why
#   SERVER_loads VAR        the loads run against it, in order
#   SERVER_load KEY SECONDS one load: srv_load_rate (per second) and
#                           srv_load_note, or a failure and srv_error
#   SERVER_check            its answers are right: srv_error if not
#   SERVER_stop             ask it to stop gracefully (not wait)
# In every mode, for every variant: start, every load (no error), the
# check, stop; the exit status is native's (0), and under trms every
# process of the server left a readable profile.
srv_test() {
	local s=$1 seconds=$2 v mode key what native_status label
	for v in $("${s}_variants"); do
		native_status=0
		for mode in $srv_modes; do
			what=$s
			[ "$v" = - ] || what="$s $v"
			what="$what ($mode)"
			srv_error=""
			if ! "${s}_start" "$mode" "$v"; then
				srv_fail "$what: did not start: ${srv_error:-see the log}"
				srv_show_log
				srv_wait_exit 1
				continue
			fi
			srv_collect
			for key in $("${s}_loads" "$v"); do
				srv_error=""
				label=$s-$key
				[ "$v" = - ] || label=$s-$v-$key
				srv_load_rate="" srv_load_note=""
				if "${s}_load" "$key" "$seconds"; then
					srv_pass "$what $key: $srv_load_note"
					srv_rate "$label" "$mode" "$srv_load_rate"
				else
					srv_fail "$what $key: $srv_error"
				fi
				srv_collect
			done
			srv_error=""
			if "${s}_check"; then
				srv_pass "$what: answers as expected"
			else
				srv_fail "$what: wrong answers: $srv_error"
			fi
			srv_collect
			"${s}_stop" || :
			srv_wait_exit 60
			if [ "$mode" = native ]; then
				native_status=$srv_status
				[ "$srv_status" = 0 ] || srv_show_log
				srv_check_exit "$what" 0
			else
				srv_check_exit "$what" "$native_status"
				srv_check_profiles "$what"
			fi
		done
	done
}

# srv_show_log: the end of the server's logs (srv_log, srv_logs), indented.
srv_show_log() {
	local f
	for f in "${srv_log:-}" "${srv_logs:-}"; do
		[ -s "$f" ] || continue
		echo "    last lines of ${f#"$work"/}:"
		tail -n 8 "$f" | sed 's/^/      /'
	done
}

# srv_finish: the summary line and the exit status.
srv_finish() {
	srv_ratios
	echo "$srv_name: $srv_passes passed, $srv_failures failed"
	[ "$srv_failures" -eq 0 ]
}
