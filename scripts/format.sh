#!/usr/bin/env bash
# Lays out the project's C++ files with clang-format 14 and the repository's .clang-format.
#
#   scripts/format.sh          rewrites every file that is not formatted, in place
#   scripts/format.sh --check  lists the files that are not formatted; exits 1 if there is one
#
# The files: the tracked (and new, not ignored) .cc/.h files under src, tests, fuzz and bench.
# The generated protocol codecs live in the build directory and are not checked. scripts/test.sh
# runs the check before it builds anything. Set CLANG_FORMAT to use another binary.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=fix
case "${1:-}" in
  "") ;;
  --check) mode=check ;;
  *) echo "usage: scripts/format.sh [--check]" >&2; exit 2 ;;
esac

# Another clang-format version lays out some lines differently, so the check would fail on
# files that version 14 accepts: insist on 14.
cf="${CLANG_FORMAT:-}"
if [ -z "$cf" ]; then
  for c in clang-format-14 clang-format; do
    if command -v "$c" >/dev/null 2>&1; then cf="$c"; break; fi
  done
fi
if [ -z "$cf" ]; then
  echo "format: clang-format not found (scripts/install-deps.sh installs it)" >&2
  exit 2
fi
if ! "$cf" --version | grep -q 'version 14\.'; then
  echo "format: $cf is not clang-format 14: $("$cf" --version)" >&2
  exit 2
fi

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files --cached --others --exclude-standard -- \
    'src/*.cc' 'src/*.h' 'tests/*.cc' 'tests/*.h' 'fuzz/*.cc' 'fuzz/*.h' \
    'bench/*.cc' 'bench/*.h' | sort -u)
else  # an unpacked archive: the same folders, without build directories
  mapfile -t files < <(find src tests fuzz bench -type f \( -name '*.cc' -o -name '*.h' \) | sort)
fi
existing=()
for f in "${files[@]}"; do
  [ -f "$f" ] && existing+=("$f")  # a tracked file deleted in the work tree is skipped
done
if [ "${#existing[@]}" -eq 0 ]; then
  echo "format: no C++ files found" >&2
  exit 2
fi

# The files whose formatted text differs: one clang-format run over all of them, which names
# the first unformatted line of each file.
set +e
report=$("$cf" --style=file --dry-run --Werror --ferror-limit=1 "${existing[@]}" 2>&1)
status=$?
set -e
mapfile -t unformatted < <(printf '%s\n' "$report" |
  sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' | sort -u)
if [ "$status" -ne 0 ] && [ "${#unformatted[@]}" -eq 0 ]; then
  printf '%s\n' "$report" >&2  # failed for another reason (a bad .clang-format, a missing file)
  exit 2
fi

if [ "$mode" = check ]; then
  if [ "${#unformatted[@]}" -gt 0 ]; then
    printf '%s\n' "${unformatted[@]}"
    echo "format: ${#unformatted[@]} of ${#existing[@]} file(s) not formatted; run scripts/format.sh" >&2
    exit 1
  fi
  echo "format: ${#existing[@]} file(s) formatted"
  exit 0
fi

if [ "${#unformatted[@]}" -gt 0 ]; then
  "$cf" --style=file -i "${unformatted[@]}"
fi
echo "format: reformatted ${#unformatted[@]} of ${#existing[@]} file(s)"
