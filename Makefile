# xport: `make demo` and `make test` install what is missing (Debian packages), build, and run.
SHELL := /bin/bash
JOBS ?= $(shell nproc)
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
# OpenBLAS 0.3.21 misdetects Sapphire Rapids as Prescott; PyTorch (the test oracle) uses it.
export OPENBLAS_CORETYPE ?= SkylakeX

.PHONY: all deps build build-asan build-fuzz demo test test-release test-asan test-fuzz bench \
  bench-models bench-export bench-archive install clean

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release

$(ASAN_BUILD)/build.ninja: | deps
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DXPORT_SANITIZE=ON \
	  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g"

# The archive fuzzer: clang (libFuzzer), ASan + UBSan, only the fuzz targets (see fuzz/).
$(FUZZ_BUILD)/build.ninja: | deps
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug \
	  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" -DXPORT_FUZZ=ON -DXPORT_BUILD_TESTS=OFF \
	  -DXPORT_BUILD_BENCH=OFF

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

build-asan: deps $(ASAN_BUILD)/build.ninja
	cmake --build $(ASAN_BUILD) -j $(JOBS)

build-fuzz: deps $(FUZZ_BUILD)/build.ninja
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_targets

demo: build
	./$(BUILD)/xport demo

test-release: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The sanitizer configuration: AddressSanitizer + UndefinedBehaviorSanitizer over every test.
test-asan: build-asan
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS) -LE no-sanitizer

# Writes the seed corpus, then fuzzes the archive loader for a fixed number of seeded runs; fails
# on any crash, sanitizer report, leak or timeout (the reproducer is left in $(FUZZ_BUILD)/fuzz).
# On success, prints libFuzzer's totals (runs, execs/s) from the test log.
test-fuzz: build-fuzz
	cd $(FUZZ_BUILD) && ctest --output-on-failure && \
	  grep -E '^(Done [0-9]+ runs|stat::)' Testing/Temporary/LastTest.log

test: test-release test-asan test-fuzz

bench: build
	/usr/bin/python3 bench/compare_ops.py $(BUILD)

bench-models: build
	/usr/bin/python3 bench/compare_models.py $(BUILD)

bench-export: build
	/usr/bin/python3 bench/compare_export.py $(BUILD)

bench-archive: build
	/usr/bin/python3 bench/compare_archive.py $(BUILD)

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
