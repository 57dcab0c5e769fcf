// What every command does with what users write: the files it is given (only regular files are read),
// the JSON objects in them (an unknown key anywhere is refused), and the paths inside them.
#include <catch2/catch.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>

#include "common/subprocess.h"

using gpuvp::test::run_gpuvp;
using gpuvp::test::temp_path;
using Catch::Matchers::Contains;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kSource = GPUVP_SOURCE_DIR;
const std::string kVectorAdd = kSource + "/sw/kernels/vectorAdd.ptx";

struct Dir {
  std::string path = temp_path("dir");
  Dir() { fs::create_directories(path); }
  ~Dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string operator/(const std::string& name) const { return path + "/" + name; }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path + "/" + name, std::ios::binary) << text;
    return path + "/" + name;
  }
};

json vector_add_launch() {
  json buf = {{"buffer", {{"type", "f32"}, {"count", 32}}}};
  return {{"ptx", kVectorAdd}, {"kernel", "vectorAdd"}, {"grid", {1}}, {"block", {32}},
          {"args", {buf, buf, buf, {{"u32", 32}}}}};
}

json campaign_with(json run) {
  json c = {{"name", "keys"},
            {"platform", {{"preset", "tx2"}, {"set", {{"sm.count", 1}}}}},
            {"targets", {"gpu.sm0.regs"}},
            {"fault", {{"model", "bit_flip"}, {"duration", "transient"}}},
            {"size", {{"count", 2}}},
            {"trigger", {{"event", "time"}}},
            {"window", {{"from_ns", 0}, {"to_ns", 1}}},
            {"seed", 1}};
  c.update(run);
  return c;
}

json with(json base, const json& patch) {
  base.update(patch);
  return base;
}

// Every object of `doc`, as a JSON pointer.
void objects(const json& doc, const json::json_pointer& at, std::vector<json::json_pointer>& out) {
  if (doc.is_object()) out.push_back(at);
  if (doc.is_object())
    for (auto& [k, v] : doc.items()) objects(v, at / k, out);
  if (doc.is_array())
    for (size_t i = 0; i < doc.size(); ++i) objects(doc[i], at / i, out);
}

// `doc` with an unknown key added to each of its objects in turn: `command` (given the file) refuses
// every one with exit 2, naming the key.
void refuses_unknown_keys(const json& doc, const std::string& file, const std::function<std::string()>& command) {
  std::vector<json::json_pointer> all;
  objects(doc, json::json_pointer(), all);
  REQUIRE(all.size() > 0);
  for (auto& p : all) {
    json bad = doc;
    bad[p]["zz_not_a_key"] = 1;
    std::ofstream(file) << bad.dump(1);
    INFO(file << " at '" << p.to_string() << "'");
    auto r = run_gpuvp(command());
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains("zz_not_a_key") && Contains("unknown"));
  }
}

}  // namespace

TEST_CASE("user files: every command that reads a file refuses a FIFO, a directory and /dev/zero at once") {
  Dir d;
  const std::string fifo = d / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  fs::create_directories(d / "folder");
  const std::vector<std::string> commands = {
      "config --config {}",        "rta {}",           "disasm {}",          "exec --launch-file {}",
      "exec --ptx {} --kernel k",  "experiment {}",    "experiment check {}", "campaign run {} --db " + (d / "x.db"),
      "campaign check {}",         "campaign resume {}", "report {}",         "campaign export {}",
      "campaign merge " + (d / "m.db") + " {}",
      "exec --ptx " + kVectorAdd + " --kernel vectorAdd --arg buf:f32:4:file={} --arg buf:f32:4 --arg buf:f32:4 --arg u32:4",
  };
  for (const std::string& path : {fifo, d / "folder", std::string("/dev/zero")})
    for (const std::string& c : commands) {
      const std::string cmd = fmt::format(fmt::runtime(c), path);
      INFO(cmd);
      const auto t0 = std::chrono::steady_clock::now();
      auto r = gpuvp::test::run_cmd("timeout 10 " + std::string(GPUVP_BINARY) + " " + cmd);
      CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(1));
      CHECK(r.status == 2);
      CHECK_THAT(r.err, Contains(path));
    }
}

TEST_CASE("user files: a file larger than any input is refused naming its size") {
  Dir d;
  const std::string big = d / "big.json";
  {
    std::ofstream f(big);
    f.seekp((std::streamoff(256) << 20) + 1);
    f << ' ';
  }
  auto r = run_gpuvp("rta " + big);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains(big) && Contains("268435458 bytes"));
}

TEST_CASE("user JSON: every object of a launch, kernel-set, configuration and experiment file refuses an unknown key") {
  Dir d;
  const std::string launch = d / "launch.json";
  refuses_unknown_keys(vector_add_launch(), launch, [&] { return "exec --launch-file " + launch; });
  const std::string set = d / "set.json";
  refuses_unknown_keys({{"kernels", {{{"name", "k"}, {"blocks", 2}, {"threads", 64}, {"time_ns", 1000}}}}}, set,
                       [&] { return "rta " + set; });
  const std::string cfg = d / "cfg.json";
  refuses_unknown_keys({{"sm", {{"count", 2}}}, {"gmem", {{"latency", 300}}}}, cfg,
                       [&] { return "config --preset tx2 --config " + cfg; });
  for (const char* example : {"tx2_priorities.json", "tk1_multikernel.json"}) {
    const std::string src = kSource + "/experiments/" + example;
    if (!fs::exists(src)) continue;
    const std::string exp = d / example;
    refuses_unknown_keys(json::parse(std::ifstream(src)), exp, [&] { return "experiment check " + exp; });
  }
}

TEST_CASE("user JSON: every object of a campaign file refuses an unknown key, its exec launch included") {
  Dir d;
  const std::string file = d / "c.json";
  refuses_unknown_keys(campaign_with({{"workload", {{"name", "vectorAdd"}}}}), file,
                       [&] { return "campaign check " + file; });
  json exec = campaign_with({{"exec", vector_add_launch()}});
  refuses_unknown_keys(exec, file, [&] { return "campaign check " + file; });
  json bus = campaign_with({{"exec", vector_add_launch()}, {"bus", {{"link", "gpu.sm0.gmem_wr"}, {"field", "data"}}}});
  bus.erase("targets");
  bus.erase("window");
  refuses_unknown_keys(bus, file, [&] { return "campaign check " + file; });
}

TEST_CASE("campaign files: bus faults are transient and have no window, and every target glob must match") {
  Dir d;
  json bus = campaign_with({{"exec", vector_add_launch()}, {"bus", {{"link", "gpu.sm0.gmem_wr"}, {"field", "data"}}}});
  bus.erase("targets");
  bus.erase("window");
  struct Case {
    json doc;
    const char* expect;
  } cases[] = {
      {with(bus, {{"fault", {{"duration", "permanent"}}}}), "fault.duration = \"permanent\": a bus fault"},
      {with(bus, {{"fault", {{"duration", "intermittent"}, {"hold_ns", 5}}}}), "only transient"},
      {with(bus, {{"window", {{"from_ns", 0}, {"to_ns", 100}}}}), "window: a bus campaign's instants"},
      {with(bus, {{"bus", {{"link", "gpu.sm0.gmem_wr"}, {"field", "command"}}}, {"fault", {{"model", "xor_mask"}, {"mask", 5}}}}),
       "bus.field command swaps read and write; only bit_flip"},
      {with(bus, {{"bus", {{"link", "gpu.sm0.gmem_wr"}, {"field", "command"}}}, {"fault", {{"model", "stuck_at_0"}}}}),
       "only bit_flip"},
      {campaign_with({{"workload", {{"name", "vectorAdd"}}}, {"targets", {"gpu.sm0.regs", "gpu.sm0.regz"}}}),
       "targets[1] 'gpu.sm0.regz' matches no target"},
      {campaign_with({{"workload", {{"name", "vectorAdd"}}}, {"targets", {"gpu.sm3.*"}}}),
       "targets: gpu.sm3.*: the platform has 1 SM"},
      {campaign_with({{"workload", {{"name", "nosuch"}}}}), ": nosuch: unknown workload"},
  };
  const std::string file = d / "c.json";
  for (auto& c : cases) {
    if (!c.doc.contains("bus")) c.doc.erase("window");  // the state campaigns run their whole window
    std::ofstream(file) << c.doc.dump();
    INFO(c.doc.dump());
    auto r = run_gpuvp("campaign check " + file);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains(file) && Contains(c.expect));
    CHECK_THAT(r.err, !Contains("workload workload"));
  }
}

TEST_CASE("exec: paths in a launch file are the file neighbours and dumps never overwrite an input") {
  Dir d;
  fs::create_directories(d / "sub");
  fs::copy_file(kVectorAdd, d / "sub/k.ptx");
  std::string ones(32 * 4, '\0');
  const float one = 1.0f;
  for (int i = 0; i < 32; ++i) std::memcpy(&ones[size_t(i) * 4], &one, 4);
  d.write("sub/a.bin", ones);
  json l = vector_add_launch();
  l["ptx"] = "k.ptx";
  l["args"][0]["buffer"].update({{"init", "file"}, {"file", "a.bin"}});
  l["args"][1]["buffer"].update({{"init", "const"}, {"value", 2}});
  l["args"][2]["buffer"]["dump"] = "c.bin";
  const std::string launch = d.write("sub/l.json", l.dump());
  auto r = run_gpuvp("exec --launch-file " + launch);  // run from the test's directory, not sub/
  REQUIRE(r.status == 0);
  const std::string c = gpuvp::test::slurp(d / "sub/c.bin");
  REQUIRE(c.size() == 32 * 4);
  float x = 0;
  std::memcpy(&x, &c[31 * 4], 4);
  CHECK(x == 3.0f);  // 1 + 2, from a.bin beside the launch file
  // The summary says which time is the kernel's and which the whole program's.
  CHECK_THAT(r.out, Contains("us kernel)") && Contains("us simulated in all (module load, copies, launch latency, kernel)"));

  const std::string ptx_before = gpuvp::test::slurp(d / "sub/k.ptx");
  fs::create_hard_link(d / "sub/k.ptx", d / "sub/hard.ptx");
  struct Case {
    std::string dump, expect;
  } cases[] = {{"k.ptx", "would overwrite the PTX file"},
               {"hard.ptx", "would overwrite the PTX file"},  // another name of the same file
               {"l.json", "would overwrite the launch file"},
               {"a.bin", "would overwrite buffer 0's input file"}};
  for (auto& k : cases) {
    json bad = l;
    bad["args"][2]["buffer"]["dump"] = k.dump;
    d.write("sub/l.json", bad.dump());
    auto rr = run_gpuvp("exec --launch-file " + launch);
    INFO(k.dump);
    CHECK(rr.status == 2);
    CHECK_THAT(rr.err, Contains(k.expect));
  }
  CHECK(gpuvp::test::slurp(d / "sub/k.ptx") == ptx_before);
  CHECK(gpuvp::test::slurp(d / "sub/a.bin") == ones);

  // A run that fails after the check leaves no empty output behind.
  auto rr = run_gpuvp(fmt::format("exec --ptx {} --kernel nosuch --arg buf:f32:4:out={} --arg buf:f32:4 --arg buf:f32:4 "
                                  "--arg u32:4", kVectorAdd, d / "new.bin"));
  CHECK(rr.status == 2);
  CHECK_FALSE(fs::exists(d / "new.bin"));
}

TEST_CASE("campaign files: an exec launch writes no dump") {
  Dir d;
  json l = vector_add_launch();
  l["args"][0]["buffer"]["dump"] = "o.bin";
  const std::string file = d.write("c.json", campaign_with({{"exec", l}}).dump());
  auto r = run_gpuvp("campaign check " + file);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("args[0].dump: a campaign compares the buffers and writes no file"));
  CHECK_FALSE(fs::exists(d / "o.bin"));
  CHECK_FALSE(fs::exists("o.bin"));
}
