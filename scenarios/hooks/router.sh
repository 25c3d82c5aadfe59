#!/bin/sh
# A job router hook for condorsim's scenarios, installed under the name of the hook it plays
# (translate.sh, update.sh, finalize.sh, cleanup.sh). It records how it was run in calls/ next
# to it (calls/<name>.<n>.args and .stdin), then does what its name says:
#   translate  prints the job it was given (what follows the "------" line), then the lines
#              of translate.out: its output replaces the routed copy entirely;
#   update     prints "ExternalPolls = <how many times it has run>" (the routed copy's update);
#   finalize   prints finalize.out (merged into the original);
#   cleanup    fails the first time it is run for a routed copy, then succeeds.
# It exits with the status in <name>.status when that file exists (else 0), and writes the
# text in <name>.err to its stderr. With a file <name>.hang it hangs (sleeps 120 s) the first
# time it runs, and behaves the times after.
dir=$(dirname "$0")
name=$(basename "$0" .sh)
mkdir -p "$dir/calls"
n=$(ls "$dir/calls" | grep -c "^$name\..*\.stdin\$")
printf '%s\n' "$#" "$@" > "$dir/calls/$name.$n.args"
stdin="$dir/calls/$name.$n.stdin"
cat > "$stdin"
if [ -f "$dir/$name.hang" ] && [ ! -f "$dir/calls/$name.hung" ]; then
  : > "$dir/calls/$name.hung"
  sleep 120
fi
case $name in
  translate) sed '1,/^------$/d' "$stdin"; [ -f "$dir/translate.out" ] && cat "$dir/translate.out" ;;
  update) echo "ExternalPolls = $((n + 1))" ;;
  finalize) [ -f "$dir/finalize.out" ] && cat "$dir/finalize.out" ;;
  cleanup)
    id=$(sed -n 's/^ClusterId = //p' "$stdin")
    if [ ! -f "$dir/calls/cleanup.tried.$id" ]; then
      : > "$dir/calls/cleanup.tried.$id"
      echo "cleanup of $id: the site is not done yet" >&2
      exit 1
    fi ;;
esac
[ -f "$dir/$name.err" ] && cat "$dir/$name.err" >&2
[ -f "$dir/$name.status" ] && exit "$(cat "$dir/$name.status")"
exit 0
