#!/usr/bin/env bash
# make check-format: every tracked .c and .h file must read as clang-format (with the
# repository's .clang-format) writes it. Lists the files that do not; `make format` or
# `clang-format -i FILE` rewrites them. Exit 1 when any file is not formatted.
set -uo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-format >/dev/null; then
    echo "check-format: clang-format is not installed (make deps)" >&2
    exit 2
fi
mapfile -t files < <(git ls-files '*.c' '*.h')
if out=$(clang-format --dry-run --Werror "${files[@]}" 2>&1); then
    echo "${#files[@]} files formatted"
    exit 0
fi
# One "FILE:LINE:COL: error: code should be clang-formatted" per difference.
bad=$(grep -o '^[^ :]*:[0-9]*:[0-9]*: error' <<<"$out" | cut -d: -f1 | sort -u)
if [[ -z $bad ]]; then
    echo "$out" >&2 # clang-format failed for another reason: show why
    exit 1
fi
echo "not formatted (make format, or clang-format -i FILE):"
sed 's/^/  /' <<<"$bad"
echo "$(wc -l <<<"$bad") of ${#files[@]} files not formatted"
exit 1
