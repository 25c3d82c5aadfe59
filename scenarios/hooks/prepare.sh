#!/bin/sh
# A prepare-job hook for condorsim's scenarios: it records how it was run (arguments,
# standard input, environment) in calls/ next to it, then prints the file next to it
# named after itself with ".out" (the attributes to merge into the job ad, maybe a
# HookStatusCode and a HookStatusMessage) and exits with the status in the file
# ".status" next to it (0 when there is none).
dir=$(dirname "$0")
name=$(basename "$0" .sh)
mkdir -p "$dir/calls"
n=$(ls "$dir/calls" | grep -c "^$name\..*\.stdin\$")
printf '%s\n' "$#" "$@" > "$dir/calls/$name.$n.args"
env | grep -E '^(BATCH_SYSTEM|_CONDOR_[A-Z_]*)=' | sort > "$dir/calls/$name.$n.env"
cat > "$dir/calls/$name.$n.stdin"
[ -f "$dir/$name.out" ] && cat "$dir/$name.out"
[ -f "$dir/$name.status" ] && exit "$(cat "$dir/$name.status")"
exit 0
