// gpuvp deadline from the command line: the profile cache (docs/deadline.md, "Profile cache"), measured
// E(K, n) written once per configuration and kernel and read back by the next run instead of measuring
// again; and input refused with exit status 2.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "common/subprocess.h"

using namespace gpuvp::test;
using nlohmann::json;

namespace {
// One medium application of one kernel (4 blocks of 1024 threads spinning 100 µs) with measured profiles.
std::string write_set(const std::string& dir) {
  const std::string f = dir + "/set.json";
  std::ofstream(f) << json{{"policies", {"fifo"}}, {"profiles", "measured"},
                           {"applications", {{{"name", "M"}, {"priority", "medium"}, {"release_us", 0}, {"deadline_us", 500},
                                              {"kernels", {{{"blocks", 4}, {"threads", 1024}, {"spin_us", 100}}}}}}}}
                              .dump();
  return f;
}

json profile_used(const std::string& dir, const std::string& cache, const std::string& set) {
  RunResult r = run_cmd(fmt::format("GPUVP_PROFILE_CACHE={} {} deadline {} --preset tx2 --out {}", cache, GPUVP_BINARY, set, dir));
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  return json::parse(slurp(dir + "/deadline.json"))["profile_us"];
}
}  // namespace

TEST_CASE("deadline: measured profiles are cached per configuration and kernel, and reused") {
  const std::string dir = temp_path("deadline_cache"), cache = dir + "/profiles";
  std::filesystem::create_directories(dir);
  const std::string set = write_set(dir);
  const json first = profile_used(dir, cache, set);
  // One file, for tx2 and this kernel, holding E(K, 1) and E(K, 2) in ns: about 200 and 100 µs (4 blocks
  // of 1024 threads, 2 per SM: two waves on 1 SM, one on 2).
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(cache)) files.push_back(e.path());
  REQUIRE(files.size() == 1);
  json cached = json::parse(slurp(files[0].string()));
  REQUIRE(cached["profile_ns"].size() == 2);
  CHECK(cached["profile_ns"][0].get<double>() == Approx(200000).epsilon(0.05));
  CHECK(cached["profile_ns"][1].get<double>() == Approx(100000).epsilon(0.05));
  // The next run reads the file instead of measuring: a profile written into it is the one used.
  cached["profile_ns"] = {300000, 150000};
  std::ofstream(files[0]) << cached.dump();
  const json second = profile_used(dir, cache, set);
  INFO(first.dump() << " then " << second.dump());
  CHECK(second == json::array({json::array({json::array({300.0, 150.0})})}));  // application 0, kernel 0, n = 1, 2
  CHECK(first[0][0][0].get<double>() == Approx(200).epsilon(0.05));
  // Another configuration is another key: measured again, a second file.
  RunResult r = run_cmd(fmt::format("GPUVP_PROFILE_CACHE={} {} deadline {} --preset tx2 --set host.launch_latency_ns=10000 --out {}",
                                    cache, GPUVP_BINARY, set, dir));
  REQUIRE(r.status == 0);
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(cache)) ++n;
  CHECK(n == 2);
  std::filesystem::remove_all(dir);
}

// A launch description naming a kernel its PTX file lacks: gpuvp deadline exits non-zero with an error
// naming the application file and the key.
TEST_CASE("deadline: an unknown PTX kernel is refused naming the file and key, exit non-zero") {
  const std::string dir = temp_path("deadline_badkernel");
  std::filesystem::create_directories(dir);
  const std::string f = dir + "/set.json";
  const json launch = {{"ptx", std::string(GPUVP_SOURCE_DIR) + "/tests/data/exec/saxpy.ptx"}, {"kernel", "saxpz"}};
  std::ofstream(f) << json{{"policies", {"fifo"}}, {"profiles", "measured"},
                           {"applications", {{{"name", "P"}, {"priority", "high"}, {"release_us", 0}, {"deadline_us", 500},
                                              {"kernels", {{{"launch", launch}}}}}}}}
                          .dump();
  RunResult r = run_cmd(fmt::format("GPUVP_PROFILE_CACHE={}/profiles {} deadline {} --preset tx2", dir, GPUVP_BINARY, f));
  INFO(r.out << r.err);
  CHECK(r.status != 0);
  using Catch::Matchers::Contains;
  CHECK_THAT(r.err, Contains(f + ": applications[0].kernels[0].launch") && Contains("no kernel 'saxpz'"));
  std::filesystem::remove_all(dir);
}

namespace {
// One application, B; `twice`: listed twice.
std::string write_b(const std::string& dir, bool twice) {
  const std::string f = dir + "/set.json";
  const json a = {{"name", "B"}, {"priority", "high"}, {"release_us", 0}, {"deadline_us", 500},
                  {"kernels", {{{"blocks", 1}, {"threads", 32}, {"spin_us", 1}}}}};
  std::ofstream(f) << json{{"applications", twice ? json{a, a} : json{a}}}.dump();
  return f;
}
}  // namespace

// Two applications of one name (the tables could not tell them apart) are refused before anything
// runs, exit status 2, naming the file and the key.
TEST_CASE("deadline: duplicate application names are refused naming the file and key, exit 2") {
  const std::string dir = temp_path("deadline_dup");
  std::filesystem::create_directories(dir);
  const std::string f = write_b(dir, true);
  RunResult r = run_cmd(fmt::format("{} deadline {} --preset tx2", GPUVP_BINARY, f));
  INFO(r.out << r.err);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Matchers::Contains(f + ": applications[1].name: \"B\" is the name of applications[0].name too"));
  std::filesystem::remove_all(dir);
}

// An --out folder that cannot be created (under /proc, or a file in the way) is refused before
// anything runs, exit status 2, naming the option and the path.
TEST_CASE("deadline: an --out that cannot be a folder is refused naming --out, exit 2") {
  const std::string dir = temp_path("deadline_out");
  std::filesystem::create_directories(dir);
  const std::string f = write_b(dir, false);
  std::ofstream(dir + "/file") << "x";
  for (const std::string& out : {std::string("/proc/nope"), dir + "/file", dir + "/file/sub"}) {
    RunResult r = run_cmd(fmt::format("{} deadline {} --preset tx2 --out {}", GPUVP_BINARY, f, out));
    INFO(r.out << r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Matchers::Contains("--out " + out + ": "));
    CHECK_THAT(r.err, !Catch::Matchers::Contains("filesystem error"));
  }
  std::filesystem::remove_all(dir);
}
