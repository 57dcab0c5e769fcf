// A run's outcome survives whatever text its error carries: a device error naming a PTX file in a
// folder with a long CJK name (the detail cut at 1000 bytes must not split a character) or a Latin-1
// name (not UTF-8 at all) keeps its DUE kind, not "simulator died"; a golden run failing that way says
// why instead of "the golden run died".
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "faultinj/engine.h"
#include "faultinj/engine_job.h"
#include "faultinj/job.h"
#include "faultinj/temp_dir.h"
#include "platform/text.h"

using namespace gpuvp;
using namespace gpuvp::fi;
using namespace gpuvp::fi::test;
namespace fs = std::filesystem;

namespace {

// `desc` with its PTX copied into `dir` (created) and read from there.
JobFactory job_in(const std::string& dir, nlohmann::json desc) {
  fs::create_directories(dir);
  const std::string ptx = dir + "/" + fs::path(desc["ptx"].get<std::string>()).filename().string();
  fs::copy_file(desc["ptx"].get<std::string>(), ptx, fs::copy_options::overwrite_existing);
  desc["ptx"] = ptx;
  return [desc] { return exec_job(engine_config(), desc, "text test"); };
}

// Folders of 84 three-byte characters (252 bytes, under NAME_MAX), `levels` deep, after `pad` ASCII
// characters: the 1000-byte cut of the detail falls inside a character for two pads in three.
std::string cjk_dir(const std::string& root, int levels, int pad) {
  std::string name;
  for (int i = 0; i < 84; ++i) name += "\xe8\xb7\xaf";  // 路
  std::string d = root + "/" + std::string(size_t(pad), 'p');
  for (int i = 0; i < levels; ++i) d += "/" + name;
  return d;
}

// The magic nibble (0xB -> 0xF) of the kernel's first instruction word, before any fetch (as in the
// engine tests): an illegal-instruction device error, whose message names the kernel's PTX file.
Fault bad_first_instruction(const GoldenRun& g) {
  return fault_at(0, "gpu.sysmem", sysmem_word(amap::kSystemBase), 2, g.start_ps);
}

}  // namespace

TEST_CASE("text outcomes: a DUE whose detail names a long CJK or a Latin-1 path keeps its kind") {
  TempDir t("text_outcomes");
  std::vector<std::string> dirs = {t("caf\xe9")};
  for (int pad = 0; pad < 3; ++pad) dirs.push_back(cjk_dir(t.dir.string(), 5, pad));
  for (const std::string& dir : dirs) {
    INFO(dir.size() << "-byte folder");
    JobFactory make = job_in(dir, vector_add_desc());
    GoldenRun g = run_golden(make);
    std::vector<RunResult> got;
    run_faults(make, g, {bad_first_instruction(g)}, EngineOptions{}, [&](const RunResult& r) { got.push_back(r); });
    REQUIRE(got.size() == 1);
    CHECK(to_string(got[0].outcome) == std::string("due"));
    CHECK(to_string(got[0].due) == std::string("illegal_instruction"));
    CHECK(got[0].detail.size() <= 1000);
    CHECK(valid_utf8(got[0].detail) == got[0].detail);
  }
}

TEST_CASE("text outcomes: a golden run failing with a Latin-1 path says why") {
  TempDir t("text_golden");
  // oob reads in[i * stride]: with a stride of 2^28 elements thread 1 reads 1 GiB past `in`, beyond
  // global memory's end, so the golden run itself fails.
  const nlohmann::json oob = {
      {"ptx", std::string(GPUVP_TEST_DATA) + "/exec/oob.ptx"}, {"kernel", "oob"}, {"grid", {1}}, {"block", {32}},
      {"args", {{{"buffer", {{"type", "u32"}, {"count", 32}}}}, {{"buffer", {{"type", "u32"}, {"count", 32}}}}, {{"i32", 1 << 28}}}}};
  JobFactory make = job_in(t("caf\xe9"), oob);
  CHECK_THROWS_WITH(run_golden(make), Catch::Matchers::Contains("address error") &&
                                          !Catch::Matchers::Contains("the golden run died"));
}
