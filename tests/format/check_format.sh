#!/usr/bin/env bash
# ctest format.check: every C and C++ source of the project is as clang-format (.clang-format at the root)
# leaves it. On failure it lists the files and the command that fixes them.
set -uo pipefail
clang_format="$1"
root="$2"
cd "${root}" || exit 1
mapfile -t files < <(git ls-files -- 'libredux/*.c' 'libredux/*.h' 'libredux/*.cpp' 'libredux/*.hpp' \
    'mpi_bench/*.cpp' 'mpi_bench/*.hpp' 'tests/*.c' 'tests/*.h' 'tests/*.cpp' 'tests/*.hpp' 2>/dev/null)
if ((${#files[@]} == 0)); then  # not a git checkout (an exported tree): format what is there
    mapfile -t files < <(find libredux mpi_bench tests -name '*.[ch]' -o -name '*.[ch]pp' | sort)
fi
if ((${#files[@]} < 50)); then
    echo "format.check: found only ${#files[@]} files under ${root}: wrong path?"
    exit 1
fi
unformatted=()
for file in "${files[@]}"; do
    [[ -f "${file}" ]] || continue
    if ! "${clang_format}" --dry-run --Werror "${file}" >/dev/null 2>&1; then
        unformatted+=("${file}")
    fi
done
if ((${#unformatted[@]} > 0)); then
    echo "format.check: ${#unformatted[@]} of ${#files[@]} files differ from clang-format's output:"
    printf '  %s\n' "${unformatted[@]}"
    echo "fix with: ${clang_format} -i ${unformatted[*]}"
    exit 1
fi
echo "format.check: ${#files[@]} files formatted"
