#!/usr/bin/env bash
# Installs what xport needs to build and test, from Debian's packages only.
# Idempotent: when everything is present it only runs dpkg-query and exits.
set -euo pipefail

packages=(
  # build
  build-essential cmake ninja-build pkg-config clang
  # library dependencies (oneDNN's CMake package asks for OpenCL even for CPU use)
  libdnnl-dev ocl-icd-opencl-dev opencl-c-headers libhwy-dev nlohmann-json3-dev libcli11-dev
  # call-site symbolization (DWARF line tables of the running process)
  libdw-dev
  # PT2 archives (zip)
  libminizip-dev
  # the archive loader's fuzzer: clang's libFuzzer runtime, and OpenMP for clang
  libclang-rt-14-dev libomp-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev
  # the numerical oracle (test-only) and a tuned BLAS so PyTorch's GEMM is not the reference BLAS
  python3 python3-numpy python3-torch python3-torchvision libopenblas0-openmp
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  SUDO=sudo
else
  SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
