#!/bin/sh
# A hook that never answers (for condorsim's scenarios): it reads its input, then sleeps
# far longer than its timeout; the daemon kills it.
cat > /dev/null
sleep 600
