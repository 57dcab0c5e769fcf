# The two commands of the README. Both build Release in build/ with Ninja.
BUILD ?= build
JOBS ?= $(shell nproc)
PRESET ?= tx2
WORKLOAD ?= vectorAdd
# CI sets WERROR=ON: project code must compile without warnings.
WERROR ?= OFF

.PHONY: run simulate test test-sanitize build setup clean

setup:
	scripts/setup

build:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUVP_WERROR=$(WERROR) > /dev/null
	cmake --build $(BUILD) -j $(JOBS)

# Installs what is missing, builds Release and runs the main job: a short fault-injection campaign
# (SEUs in the block scheduler of a 2-SM flexgrip vectorAdd), printing AVF and MTBF.
run: setup build
	rm -f $(BUILD)/quick.db
	$(BUILD)/gpuvp campaign run campaigns/quick.json --db $(BUILD)/quick.db

# One kernel run with statistics: make simulate PRESET=flexgrip WORKLOAD=scalarProd
simulate: setup build
	$(BUILD)/gpuvp run --preset $(PRESET) --workload $(WORKLOAD)

# Builds and runs the whole test suite through CTest (installing what is missing first).
test: setup build
	cd $(BUILD) && ctest --output-on-failure --timeout 300 -j $(JOBS)

# The whole suite again, built with AddressSanitizer and UndefinedBehaviorSanitizer (RelWithDebInfo, in
# $(SAN_BUILD); bench programs no test runs are left out): any report fails the test that caused it.
# What is left out and why: docs/validation.md,
# "Sanitizers" (handle_segv=0: fault-injection tests crash runs with SIGSEGV on purpose and check that
# the signal is reported; a real segfault still fails its test).
SAN_BUILD ?= build-sanitize
SAN_ENV = ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:handle_segv=0 \
	  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
test-sanitize: setup
	cmake -S . -B $(SAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUVP_WERROR=$(WERROR) \
	  -DGPUVP_SANITIZE=address,undefined -DGPUVP_BENCH=OFF > /dev/null
	cmake --build $(SAN_BUILD) -j $(JOBS)
	cd $(SAN_BUILD) && $(SAN_ENV) ctest --output-on-failure --timeout 300 -j $(JOBS)

clean:
	rm -rf $(BUILD)
