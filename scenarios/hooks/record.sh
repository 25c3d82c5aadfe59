#!/bin/sh
# An advisory hook for condorsim's scenarios (REPLY_FETCH, EVICT_CLAIM, UPDATE_JOB_INFO,
# JOB_EXIT): it records how it was run -- its arguments, its standard input and the
# HTCondor variables of its environment -- in calls/ next to it, named after the script
# (reply_fetch.sh -> calls/reply_fetch.0.args, .stdin, .env), and prints nothing.
dir=$(dirname "$0")
name=$(basename "$0" .sh)
mkdir -p "$dir/calls"
n=$(ls "$dir/calls" | grep -c "^$name\..*\.stdin\$")
printf '%s\n' "$#" "$@" > "$dir/calls/$name.$n.args"
env | grep -E '^(BATCH_SYSTEM|_CONDOR_[A-Z_]*|STARTD_[A-Z_]*|SCHEDD_[A-Z_]*)=' | sort > "$dir/calls/$name.$n.env"
cat > "$dir/calls/$name.$n.stdin"
exit 0
