#!/bin/sh
# An advisory hook for condorsim's scenarios: it records how it was run (its arguments,
# its standard input, and the HookKeyword-related environment) in calls/ next to it,
# under the name of the hook given as the first word of the file name (reply_fetch.sh ->
# reply), and prints nothing.
dir=$(dirname "$0")
name=$(basename "$0" .sh | cut -d_ -f1)
mkdir -p "$dir/calls"
n=$(ls "$dir/calls" | grep -c "^$name\..*\.stdin\$")
echo "$#" "$@" > "$dir/calls/$name.$n.args"
cat > "$dir/calls/$name.$n.stdin"
exit 0
