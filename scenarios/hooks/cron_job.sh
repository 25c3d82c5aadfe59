#!/bin/sh
# A daemon ClassAd hook (cron job) for condorsim's scenarios: it records how the daemon
# ran it (arguments, HTCondor's variables of its environment, working directory) in
# calls/ next to it, counts its runs, then prints the file next to it named after its
# first argument (the job's name, as HTCondor passes it) with ".out", with $RUN replaced
# by the run's number, and exits with the status in "<name>.status" (0 when none).
dir=$(dirname "$0")
name=$1
mkdir -p "$dir/calls"
n=$(ls "$dir/calls" | grep -c "^$name\..*\.args\$")
printf '%s\n' "$#" "$@" > "$dir/calls/$name.$n.args"
env | grep -E '^(CONDORSIM_MACHINE|STARTD_[A-Z_]*|SCHEDD_[A-Z_]*|BENCHMARKS_[A-Z_]*|CRON_[A-Z_]*)=' | sort > "$dir/calls/$name.$n.env"
pwd > "$dir/calls/$name.$n.cwd"
run=$((n + 1))
[ -f "$dir/$name.out" ] && sed "s/\$RUN/$run/g" "$dir/$name.out"
[ -f "$dir/$name.err" ] && cat "$dir/$name.err" >&2
[ -f "$dir/$name.status" ] && exit "$(cat "$dir/$name.status")"
exit 0
