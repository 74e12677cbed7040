#!/usr/bin/env bash
# Checks that the project's C++ files (*.cpp, *.h, *.hpp under src/ models/ tests/
# testbenches/ examples/) are formatted per .clang-format.
#   scripts/check_format.sh          list unformatted files; exit 1 if any
#   scripts/check_format.sh --diff   also show what clang-format would change
#   scripts/check_format.sh --fix    reformat them in place (clang-format -i)
# Files are the tracked plus untracked-not-ignored ones from git; outside a git
# checkout, found with find. Vendored code under third_party/, vendor/ or external/
# is skipped. CLANG_FORMAT selects the binary (default clang-format).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

mode="check"
for arg in "$@"; do
  case "$arg" in
    --fix) mode="fix" ;;
    --diff) mode="diff" ;;
    -h | --help)
      sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "check_format: unknown argument: $arg (use --fix, --diff or --help)" >&2
      exit 2
      ;;
  esac
done

CLANG_FORMAT=${CLANG_FORMAT:-clang-format}
if ! command -v "$CLANG_FORMAT" >/dev/null 2>&1; then
  echo "check_format: $CLANG_FORMAT not found (run scripts/setup.sh)" >&2
  exit 2
fi

DIRS=(src models tests testbenches examples)

list_files() {
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -z --cached --others --exclude-standard -- "${DIRS[@]}"
  else
    local existing=()
    local d
    for d in "${DIRS[@]}"; do
      [[ -d "$d" ]] && existing+=("$d")
    done
    ((${#existing[@]} == 0)) || find "${existing[@]}" -type f -print0
  fi
}

files=()
while IFS= read -r -d '' f; do
  case "$f" in
    */third_party/* | */vendor/* | */external/*) continue ;;
    *.cpp | *.h | *.hpp) ;;
    *) continue ;;
  esac
  # Tracked files deleted in the working tree are listed by git but are gone.
  [[ -f "$f" ]] && files+=("$f")
done < <(list_files | sort -zu)

if ((${#files[@]} == 0)); then
  echo "check_format: no C++ files found"
  exit 0
fi

# A broken .clang-format would make every file look unformatted; say so instead.
if ! err=$("$CLANG_FORMAT" -style=file --dump-config "${files[0]}" 2>&1 >/dev/null) || [[ -n "$err" ]]; then
  echo "check_format: $CLANG_FORMAT cannot read the style for ${files[0]}:" >&2
  echo "$err" >&2
  exit 2
fi

if [[ "$mode" == fix ]]; then
  "$CLANG_FORMAT" -i -style=file "${files[@]}"
  echo "check_format: formatted ${#files[@]} files"
  exit 0
fi

bad=()
for f in "${files[@]}"; do
  if ! "$CLANG_FORMAT" --dry-run -Werror -style=file "$f" >/dev/null 2>&1; then
    bad+=("$f")
  fi
done

if ((${#bad[@]} == 0)); then
  echo "check_format: ${#files[@]} files formatted"
  exit 0
fi

echo "check_format: ${#bad[@]} of ${#files[@]} files are not clang-formatted:"
for f in "${bad[@]}"; do
  echo "  $f"
  if [[ "$mode" == diff ]]; then
    "$CLANG_FORMAT" -style=file "$f" | diff -u --label "$f" --label "$f (formatted)" "$f" - | sed 's/^/    /' || true
  fi
done
echo "check_format: fix with scripts/check_format.sh --fix"
exit 1
