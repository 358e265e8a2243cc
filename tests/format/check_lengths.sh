#!/usr/bin/env bash
# Checks that no source file of the library (libredux/src) is over 400 lines, so that each holds one concept.
#   bash tests/format/check_lengths.sh REPOSITORY_ROOT
# Prints every file over the limit with its length; exit status 1 when there is one, 0 otherwise.
set -euo pipefail
root="$1"
limit=400
status=0
while IFS= read -r -d '' file; do
    lines=$(wc -l <"${file}")
    if ((lines > limit)); then
        echo "${file#"${root}"/}: ${lines} lines (at most ${limit})"
        status=1
    fi
done < <(find "${root}/libredux/src" -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.c' -o -name '*.h' \) -print0)
((status == 0)) && echo "every file of libredux/src has at most ${limit} lines"
exit "${status}"
