// The CLI's answers to bad input: a message naming the key or file, and exit status 2.
#include <catch2/catch.hpp>

#include "common/subprocess.h"

using gpuvp::test::run_gpuvp;
using Catch::Matchers::Contains;

TEST_CASE("cli: out-of-range and malformed configuration values exit 2 naming the key") {
  struct Case {
    const char* args;
    const char* expect;
  } cases[] = {
      {"config --preset flexgrip --set sm.count=0", "sm.count = 0: out of range; expected an integer in [1, 64]"},
      {"config --preset flexgrip --set sm.count=17", "sm.count = 17: the FlexGripPlus block scheduler"},
      {"config --preset tx2 --set sm.count=65", "sm.count = 65: out of range; expected an integer in [1, 64]"},
      {"config --preset tx2 --set sm.warp_size=24", "sm.warp_size = 24: not a power of two"},
      {"config --preset tx2 --set sm.count=four", "sm.count = \"four\": not an integer"},
      {"config --preset tx2 --set sm.coalesce=yes", "sm.coalesce = \"yes\": not a boolean; expected true or false"},
      {"config --preset tx2 --set scheduler.policy=lottery", "scheduler.policy = \"lottery\": not an allowed value"},
      {"config --preset tx2 --set sm.cuont=2", "unknown configuration key 'sm.cuont'"},
      {"config --preset tx2 --set gpu.clock_mhz=0", "gpu.clock_mhz = 0: out of range"},
      {"config --preset nosuch", "unknown preset 'nosuch' (known: flexgrip, gtx480, tk1, tx2)"},
      {"config --preset tx2 --config /nonexistent.json", "configuration file /nonexistent.json: cannot open"},
      {"run --preset tx2 --workload nosuch", "--workload nosuch: unknown workload"},
      {"run --preset tx2 --workload vectorAdd --launch nosuch", "--launch:"},
      {"run --preset flexgrip --set sm.count=17 --workload vectorAdd", "sm.count = 17"},
  };
  for (auto& c : cases) {
    INFO(c.args);
    auto r = run_gpuvp(c.args);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains(c.expect));
  }
}

TEST_CASE("cli: a configuration file with an unknown key or bad JSON exits 2 naming the file") {
  std::string f = gpuvp::test::temp_path("cfg.json");
  {
    std::ofstream(f) << R"({"sm": {"count": 2, "spz": 8}})";
  }
  auto r = run_gpuvp("config --preset flexgrip --config " + f);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains(f) && Contains("unknown configuration key 'sm.spz'"));
  {
    std::ofstream(f) << R"({"sm": {"count": 2,)";
  }
  r = run_gpuvp("config --preset flexgrip --config " + f);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains(f) && Contains("not valid JSON"));
  std::remove(f.c_str());
}

TEST_CASE("cli: config prints the effective configuration with overrides applied") {
  auto r = run_gpuvp("config --preset tx2 --set sm.count=4 --set gmem.latency=300");
  REQUIRE(r.status == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["sm"]["count"] == 4);
  CHECK(j["gmem"]["latency"] == 300);
  CHECK(j["sm"]["sps"] == 128);
  CHECK(j["gpu"]["clock_mhz"] == 1300.0);
}

TEST_CASE("cli: unknown subcommands and options exit 2") {
  CHECK(run_gpuvp("frobnicate").status == 2);
  CHECK(run_gpuvp("run --no-such-option").status == 2);
}

TEST_CASE("docs: the configuration reference is up to date") {
  auto r = run_gpuvp("config --reference");
  REQUIRE(r.status == 0);
  std::string doc = gpuvp::test::slurp(std::string(GPUVP_TEST_DATA) + "/../../docs/configuration.md");
  CHECK(doc == r.out);
}

TEST_CASE("cli: numbers JSON cannot hold, directories, empty objects and unwritable outputs exit 2") {
  struct Case {
    std::string args, expect;
  } cases[] = {
      {"config --preset tx2 --set sm.count=1e400", "sm.count = \"1e400\": not an integer"},
      {"config --preset tx2 --config /tmp", "configuration file /tmp: a directory"},
      {"run --preset tx2 --workload vectorAdd --stats /nonexistent/s.json", "--stats /nonexistent/s.json: cannot write"},
      {"run --preset tx2 --workload vectorAdd --timeline /nonexistent/t.json", "--timeline /nonexistent/t.json: cannot write"},
      {"run --preset tx2 --workload vectorAdd --vcd /nonexistent/w", "--vcd /nonexistent/w.vcd: cannot write"},
      {"disasm /tmp", "PTX file /tmp: a directory"},
  };
  for (auto& c : cases) {
    INFO(c.args);
    auto r = run_gpuvp(c.args);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains(c.expect));
  }
  std::string f = gpuvp::test::temp_path("cfg.json");
  for (const char* j : {R"({"sm": {"count": {}}})", R"({"sm": {"latency": {"alu": {}}}})", R"({"sm": {"count": 1e400}})"}) {
    INFO(j);
    std::ofstream(f) << j;
    auto r = run_gpuvp("config --preset tx2 --config " + f);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains(f));
  }
  std::remove(f.c_str());
}

TEST_CASE("cli: waveforms of tx2 and tk1 have picosecond resolution, without warnings") {
  std::string w = gpuvp::test::temp_path("wave");
  auto r = run_gpuvp(fmt::format("run --preset tx2 --workload vectorAdd --vcd {}", w));
  CHECK(r.status == 0);
  CHECK_THAT(r.err, !Contains("not representable"));
  CHECK_THAT(gpuvp::test::slurp(w + ".vcd"), Contains("$timescale\n\t1 ps\n$end") || Contains("1 ps"));
  std::remove((w + ".vcd").c_str());
}

TEST_CASE("cli: report --raw-fit takes any finite number in [0, 1e12], denormals too, and refuses words") {
  // The store does not exist: a value the option takes gets as far as opening it.
  auto r = run_gpuvp("report /nonexistent/r.db --raw-fit 1e-320");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, !Contains("raw-fit") && Contains("/nonexistent/r.db"));
  for (const char* bad : {"abc", "1e-320x", "''"}) {
    INFO(bad);
    r = run_gpuvp(std::string("report /nonexistent/r.db --raw-fit ") + bad);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains("--raw-fit") && Contains("not a number"));
  }
  r = run_gpuvp("report /nonexistent/r.db --raw-fit 2e12");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("must be a finite number in [0, 1e12]: 2e12"));
}

TEST_CASE("cli: an integer key refuses 1e1 and 2.0 with the same message as any non-integer") {
  for (const char* v : {"1e1", "10.0"}) {
    INFO(v);
    auto r = run_gpuvp(std::string("config --preset tx2 --set sm.count=") + v);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains("--set: sm.count = 10.0: not an integer; expected an integer in [1, 64]"));
  }
}
