// A kernel that reads one element past its buffer: a device error naming the address, on every
// preset (lane by lane on flexgrip, coalesced on tk1/tx2), unless bounds checking is switched off.
#include <catch2/catch.hpp>

#include "common/subprocess.h"

using namespace gpuvp::test;
using Catch::Matchers::Contains;

namespace {
// vectorAdd(a, b, c, n) with n = 33 over 32-element a and b: lane 32 reads b[32] and a[32], just past them.
std::string launch(const std::string& preset, const std::string& extra = "") {
  return fmt::format("exec --preset {} {} --ptx {}/../../sw/kernels/vectorAdd.ptx --kernel vectorAdd --grid 1 --block 64 "
                     "--arg buf:f32:32:iota --arg buf:f32:32:iota --arg buf:f32:64 --arg i32:33",
                     preset, extra, GPUVP_TEST_DATA);
}
}  // namespace

TEST_CASE("bounds: reading one element past a buffer is a device error on every preset") {
  for (const char* preset : {"flexgrip", "tk1", "tx2"}) {
    INFO(preset);
    auto r = run_gpuvp(launch(preset));
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Contains("device error") && Contains("kernel vectorAdd") && Contains("lane 0") &&
                          Contains("warp 1"));
    // Allocations are 256-byte aligned from global memory + 0x100: a at +0x100, b at +0x200. nvcc's
    // PTX loads b[i] before a[i], so the first read outside is b[32] at +0x200 + 0x80.
    CHECK_THAT(r.err, Contains("address 0x10000280"));
  }
}

TEST_CASE("bounds: with gmem.check_bounds=false the same launch runs (and reads whatever is there)") {
  auto r = run_gpuvp(launch("tx2", "--set gmem.check_bounds=false"));
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains("buffer 2 (64 x f32): 0 2 4 6 8 10 12 14"));
}

TEST_CASE("bounds: one element past a buffer of a multiple of 256 bytes is caught, not read from the next one") {
  // oob(in, out, 1): thread 128 reads in[128], just past the 512 bytes of in at +0x100; out follows
  // in memory, but never adjacent to it.
  for (const char* preset : {"flexgrip", "tk1", "tx2"}) {
    INFO(preset);
    auto r = run_gpuvp(fmt::format("exec --preset {} --ptx {}/exec/oob.ptx --kernel oob --grid 1 --block 129 "
                                   "--arg buf:i32:128:iota --arg buf:i32:129 --arg i32:1",
                                   preset, GPUVP_TEST_DATA));
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Contains("device error: kernel oob") && Contains("address 0x10000300"));
  }
}
