# xport: `make demo` and `make test` install what is missing (Debian packages), build, and run.
SHELL := /bin/bash
JOBS ?= $(shell nproc)
BUILD ?= build
ASAN_BUILD ?= build-asan
# OpenBLAS 0.3.21 misdetects Sapphire Rapids as Prescott; PyTorch (the test oracle) uses it.
export OPENBLAS_CORETYPE ?= SkylakeX

.PHONY: all deps build build-asan demo test test-release test-asan bench bench-models bench-export \
  install clean

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release

$(ASAN_BUILD)/build.ninja: | deps
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DXPORT_SANITIZE=ON \
	  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g"

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

build-asan: deps $(ASAN_BUILD)/build.ninja
	cmake --build $(ASAN_BUILD) -j $(JOBS)

demo: build
	./$(BUILD)/xport demo

test-release: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The sanitizer configuration: AddressSanitizer + UndefinedBehaviorSanitizer over every test.
test-asan: build-asan
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS) -LE no-sanitizer

test: test-release test-asan

bench: build
	/usr/bin/python3 bench/compare_ops.py $(BUILD)

bench-models: build
	/usr/bin/python3 bench/compare_models.py $(BUILD)

bench-export: build
	/usr/bin/python3 bench/compare_export.py $(BUILD)

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
