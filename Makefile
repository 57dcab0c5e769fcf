# The two commands of the README. Both build Release in build/ with Ninja.
BUILD ?= build
JOBS ?= $(shell nproc)
PRESET ?= tx2
WORKLOAD ?= vectorAdd
# CI sets WERROR=ON: project code must compile without warnings.
WERROR ?= OFF

.PHONY: run test build setup clean

setup:
	scripts/setup

build:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUVP_WERROR=$(WERROR) > /dev/null
	cmake --build $(BUILD) -j $(JOBS)

# Installs what is missing, builds Release and runs the main job on the default preset.
run: setup build
	$(BUILD)/gpuvp run --preset $(PRESET) --workload $(WORKLOAD)

# Builds and runs the whole test suite through CTest.
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD)
