#!/usr/bin/env bash
# Installs the Debian 12 packages that npusim needs to build, test and plot, and those of
# its Python package (pybind11; pytest, pandas and the notebook runner for its tests).
# A no-op (one line of output) when everything is already installed.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libsystemc-dev libyaml-cpp-dev libgtest-dev libgmock-dev
  nlohmann-json3-dev libfmt-dev libcli11-dev
  libonnx-dev libprotobuf-dev
  clang-format python3 python3-matplotlib python3-yaml python3-onnx
  python3-dev pybind11-dev python3-pybind11 python3-pytest python3-pandas
  python3-nbclient python3-nbformat python3-ipykernel
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  if [[ "$status" != *"install ok installed"* ]]; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "setup: all packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"

SUDO=()
if ((EUID != 0)); then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    echo "setup: not root and sudo is not available; install these as root: ${missing[*]}" >&2
    exit 1
  fi
fi

log=$(mktemp "${TMPDIR:-/tmp}/npusim-setup.XXXXXX")
trap 'rm -f "$log"' EXIT

apt_opts=(-o DPkg::Lock::Timeout=300)
if ! "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get "${apt_opts[@]}" update >"$log" 2>&1 ||
  ! "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get "${apt_opts[@]}" install -y --no-install-recommends "${missing[@]}" >>"$log" 2>&1; then
  cat "$log" >&2
  echo "setup: apt-get failed" >&2
  exit 1
fi
