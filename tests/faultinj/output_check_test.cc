// Output checks (docs/campaigns.md, "Output checks"): tolerances, shares and external check commands
// decide between tolerable and SDC; input buffers never count. Expected values are worked by hand from
// the IEEE-754 encodings and the tolerance formula |faulty - golden| <= abs + rel * |golden|.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "faultinj/output_check.h"
#include "faultinj/temp_dir.h"
#include "faultinj/export_csv.h"

using namespace gpuvp::fi;
using Catch::Matchers::Contains;

namespace {

template <class T>
std::vector<uint8_t> bytes_of(std::vector<T> v) {
  std::vector<uint8_t> out(v.size() * sizeof(T));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

OutputBuffer buf(const std::string& name, const std::string& type, std::vector<uint8_t> before, std::vector<uint8_t> after) {
  return {name, type, true, std::move(before), std::move(after)};
}

const std::vector<float> kGolden = {1.0f, 2.0f, 3.0f, 4.0f};

CheckVerdict check_f32(const OutputCheckSpec& spec, std::vector<float> faulty) {
  const std::vector<GoldenOutput> golden = {{"args[2]", "f32", bytes_of(kGolden)}};
  return check_outputs(spec, golden, {buf("args[2]", "f32", {}, bytes_of(faulty))});
}

void script(const std::string& path, const std::string& body) {
  gpuvp::fi::test::write_file(path, "#!/bin/sh\n" + body + "\n");
  ::chmod(path.c_str(), 0755);
}

}  // namespace

TEST_CASE("output check: a float perturbation below the absolute tolerance is tolerable, above it SDC") {
  OutputCheckSpec spec;
  spec.abs = 0.001;
  // 2.0005f is 2 + 2097 * 2^-22 (0.0005 * 2^22 = 2097.15 rounds to 2097) = 2.00049996...: error < 1e-3.
  CheckVerdict v = check_f32(spec, {1.0f, 2.0005f, 3.0f, 4.0f});
  CHECK(v.outcome == Outcome::Tolerable);
  CHECK_THAT(v.detail, Contains("1 of 4 output elements differ (0 beyond the tolerance), first args[2][1]"));
  CHECK_THAT(v.detail, Contains("largest error 0.0004999637603759766 absolute"));
  spec.abs = 0.0001;
  CHECK(check_f32(spec, {1.0f, 2.0005f, 3.0f, 4.0f}).outcome == Outcome::SDC);
  // Without a tolerance every ulp counts.
  CHECK(check_f32(OutputCheckSpec{}, {1.0f, 2.0005f, 3.0f, 4.0f}).outcome == Outcome::SDC);
  CHECK(check_f32(spec, kGolden).outcome == Outcome::Masked);
}

TEST_CASE("output check: relative tolerance scales with the golden value, NaN is never within") {
  OutputCheckSpec spec;
  spec.rel = 0.002;
  // 4.004f = 4 + 8389 * 2^-21 (0.004 * 2^21 = 8388.6 rounds to 8389) = 4.00400019: error <= 0.002 * 4.
  CHECK(check_f32(spec, {1.0f, 2.0f, 3.0f, 4.004f}).outcome == Outcome::Tolerable);
  spec.rel = 0.0005;  // bound 0.002
  const CheckVerdict v = check_f32(spec, {1.0f, 2.0f, 3.0f, 4.004f});
  CHECK(v.outcome == Outcome::SDC);
  CHECK_THAT(v.detail, Contains("first args[2][3] (golden 4, faulty 4.004000186920166)"));
  spec.rel = 1e9;
  CHECK(check_f32(spec, {1.0f, std::nanf(""), 3.0f, 4.0f}).outcome == Outcome::SDC);
}

TEST_CASE("output check: a maximum share of elements beyond the tolerance") {
  OutputCheckSpec spec;
  spec.max_share = 0.5;  // 2 of 4 allowed
  CHECK(check_f32(spec, {9.0f, 8.0f, 3.0f, 4.0f}).outcome == Outcome::Tolerable);
  CHECK(check_f32(spec, {9.0f, 8.0f, 7.0f, 4.0f}).outcome == Outcome::SDC);
  spec.max_share = 0.25;
  CHECK(check_f32(spec, {9.0f, 8.0f, 3.0f, 4.0f}).outcome == Outcome::SDC);
}

TEST_CASE("output check: integer elements are compared as their type, 64-bit values exactly") {
  OutputCheckSpec spec;
  spec.abs = 2;
  const std::vector<GoldenOutput> g = {{"args[0]", "i32", bytes_of(std::vector<int32_t>{-5, 7})}};
  CHECK(check_outputs(spec, g, {buf("args[0]", "i32", {}, bytes_of(std::vector<int32_t>{-3, 7}))}).outcome ==
        Outcome::Tolerable);
  spec.abs = 1;
  CHECK(check_outputs(spec, g, {buf("args[0]", "i32", {}, bytes_of(std::vector<int32_t>{-3, 7}))}).outcome ==
        Outcome::SDC);
  // 2^63 and 2^63 + 1 differ by exactly 1 (a double would make them equal).
  const std::vector<GoldenOutput> g64 = {{"args[0]", "u64", bytes_of(std::vector<uint64_t>{1ull << 63})}};
  const auto f64 = bytes_of(std::vector<uint64_t>{(1ull << 63) + 1});
  spec.abs = 0.5;
  CHECK(check_outputs(spec, g64, {buf("args[0]", "u64", {}, f64)}).outcome == Outcome::SDC);
  spec.abs = 1;
  CHECK(check_outputs(spec, g64, {buf("args[0]", "u64", {}, f64)}).outcome == Outcome::Tolerable);
}

TEST_CASE("output check: input buffers never count") {
  const auto in = bytes_of(std::vector<float>{1, 2}), out0 = bytes_of(std::vector<float>{0, 0}),
             out1 = bytes_of(std::vector<float>{2, 3});
  const std::vector<OutputBuffer> golden_run = {buf("args[0]", "f32", in, in), buf("args[1]", "f32", out0, out1),
                                                {"printf", "text", false, {}, {}}};
  const std::vector<GoldenOutput> outs = select_outputs(OutputCheckSpec{}, golden_run);
  REQUIRE(outs.size() == 2);
  CHECK(outs[0].name == "args[1]");
  CHECK(outs[1].name == "printf");
  // The input read back corrupted, the output right: masked.
  const auto bad_in = bytes_of(std::vector<float>{1, 99});
  CHECK(check_outputs(OutputCheckSpec{}, outs, {buf("args[0]", "f32", in, bad_in), buf("args[1]", "f32", out0, out1)})
            .outcome == Outcome::Masked);
  // Named outputs: exactly those; an unknown name lists the buffers.
  OutputCheckSpec named;
  named.outputs = {"args[0]"};
  CHECK(select_outputs(named, golden_run).at(0).name == "args[0]");
  named.outputs = {"args[7]"};
  CHECK_THROWS_WITH(select_outputs(named, golden_run), Contains("'args[7]' is not a buffer of the job (buffers: args[0], args[1], printf)"));
  // A kernel that wrote nothing: the outputs must be named.
  CHECK_THROWS_WITH(select_outputs(OutputCheckSpec{}, {buf("args[0]", "f32", in, in)}), Contains("check.outputs"));
}

TEST_CASE("output check: an external command's exit status decides, a failing or hanging one is a tool error") {
  gpuvp::fi::test::TempDir dir("output_check_cmd");
  OutputCheckSpec spec;
  auto run = [&](const std::string& body) {
    script(dir("check.sh"), body);
    spec.command = {dir("check.sh")};
    return check_f32(spec, {1.0f, 2.5f, 3.0f, 4.0f});
  };
  CHECK(run("exit 0").outcome == Outcome::Tolerable);
  const CheckVerdict sdc = run("echo element 1 is wrong; exit 1");
  CHECK(sdc.outcome == Outcome::SDC);
  CHECK_THAT(sdc.detail, Contains("check command: exit 1 (wrong output): element 1 is wrong"));
  // The files hold the output buffers only: 4 f32 = 16 bytes each, and they differ.
  CHECK(run(R"sh(test "$(wc -c < "$1")" -eq 16 && test "$(wc -c < "$2")" -eq 16 && ! cmp -s "$1" "$2")sh").outcome ==
        Outcome::Tolerable);
  const CheckVerdict three = run("echo cannot parse >&2; exit 3");
  CHECK(three.outcome == Outcome::ToolError);
  CHECK_THAT(three.detail, Contains("exit status 3: cannot parse"));
  CHECK_THAT(run("kill -SEGV $$").detail, Contains("killed by signal 11"));
  spec.timeout_s = 0.5;
  const auto t0 = std::chrono::steady_clock::now();
  const CheckVerdict hang = run("sleep 30");
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
  CHECK(hang.outcome == Outcome::ToolError);
  CHECK_THAT(hang.detail, Contains("timed out after 0.5 s"));
  spec.command = {dir("missing.sh")};
  CHECK(check_f32(spec, {1.0f, 2.5f, 3.0f, 4.0f}).outcome == Outcome::ToolError);
  // Identical outputs never run the command.
  spec.command = {"false"};
  CHECK(check_f32(spec, kGolden).outcome == Outcome::Masked);
}
