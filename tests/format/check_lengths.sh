#!/usr/bin/env bash
# Checks that no source file of the library (libredux/src) is over 400 lines, so that each holds one concept, and
# that no function in them is over 100 lines (function_lengths.py).
#   bash tests/format/check_lengths.sh REPOSITORY_ROOT
# Prints every file and function over its limit with its length; exit status 1 when there is one, 0 otherwise.
set -euo pipefail
root="$1"
limit=400
function_limit=100
files=()
status=0
while IFS= read -r -d '' file; do
    lines=$(wc -l <"${file}")
    if ((lines > limit)); then
        echo "${file#"${root}"/}: ${lines} lines (at most ${limit})"
        status=1
    fi
    files+=("${file}")
done < <(find "${root}/libredux/src" -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.c' -o -name '*.h' \) -print0)
python3 "$(dirname "$0")/function_lengths.py" "${function_limit}" "${files[@]}" || status=1
((status == 0)) && echo "every file of libredux/src has at most ${limit} lines, every function at most ${function_limit}"
exit "${status}"
