#!/bin/sh
# A fetch-work hook for condorsim's scenarios: it records how the startd ran it (its
# arguments, one a line, and standard input, in calls/ next to it), then pops the first job of the
# queue file next to it (one job a line, attributes separated by ';') and prints it one
# attribute a line -- nothing at all when the queue is empty (no work).
dir=$(dirname "$0")
mkdir -p "$dir/calls"
n=$(ls "$dir/calls" | grep -c '^fetch\..*\.stdin$')
printf '%s\n' "$#" "$@" > "$dir/calls/fetch.$n.args"
cat > "$dir/calls/fetch.$n.stdin"
line=$(grep -v '^$' "$dir/queue" | head -n 1)
[ -z "$line" ] && exit 0
grep -v '^$' "$dir/queue" | tail -n +2 > "$dir/queue.new" && mv "$dir/queue.new" "$dir/queue"
echo "$line" | tr ';' '\n' | sed 's/^ *//'
