#!/usr/bin/env bash
# Installs what xport needs to build and test, from Debian's packages only (the Python test
# environment is scripts/make-venv.sh). With --demo, only what `make demo` needs: the build's
# packages, without the browser, clang and its fuzzing runtime, which only tests use. Works on Debian 12 and 13: packages whose names carry a
# version (clang's runtime) are chosen from what the distribution offers.
# Idempotent: when everything is present it only runs dpkg-query and exits.
set -euo pipefail

packages=(
  # build; mold links the libraries `xport compile` makes (ahead-of-time compilation) fast
  build-essential cmake ninja-build pkg-config ccache mold
  # library dependencies (oneDNN's CMake package asks for OpenCL even for CPU use)
  libdnnl-dev ocl-icd-opencl-dev opencl-c-headers libhwy-dev nlohmann-json3-dev libcli11-dev
  # call-site symbolization (DWARF line tables of the running process)
  libdw-dev
  # PT2 archives (zip)
  libminizip-dev
  # Unicode categories, decomposition and case for the WordPiece tokenizer
  libutf8proc-dev
  # the FFT ops (KISS FFT's header-only C++ transform)
  libkissfft-dev
  # ONNX export (the ONNX C++ library: protobuf types, checker; and protobuf it is built on)
  libonnx-dev libprotobuf-dev
  # syntax highlighting in the ExportDB site and pan/zoom in `xport view`'s pages (both compiled
  # into the xport tool), and the layout of `xport view`'s graph pictures
  libjs-highlight.js libjs-d3 libgraphviz-dev
  # tests and benchmarks (the build's configuration looks for them)
  libgtest-dev libgmock-dev libbenchmark-dev
  # the Python environment (the demo's model; PyTorch 2.13 and its peers for tests)
  python3 python3-venv
)
# Only tests use these: headless chromium opens the ExportDB site and the viewer's pages; clang
# builds the loader fuzzers (its OpenMP and, below, its libFuzzer runtime); curl is what the
# docs' serving examples call the server with (tests/docs/doc_snippets.py runs them).
test_packages=(chromium clang libomp-dev curl)

if [ "$(id -u)" -ne 0 ]; then
  SUDO=sudo
else
  SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
updated=0

missing_of() {
  local p
  for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      echo "$p"
    fi
  done
}

install_missing() {
  local missing
  mapfile -t missing < <(missing_of "$@")
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "install-deps: installing ${missing[*]}"
  if [ "$updated" -eq 0 ]; then
    $SUDO apt-get update -qq
    updated=1
  fi
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

install_missing "${packages[@]}"
[ "${1:-}" = --demo ] && exit 0
install_missing "${test_packages[@]}"

# libFuzzer's runtime belongs to the installed clang's major version (14 on Debian 12, 19 on 13).
clang_major=$(clang --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -n 1)
install_missing "libclang-rt-${clang_major}-dev"
