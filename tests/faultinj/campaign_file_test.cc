// Campaign files: a full document, defaults, and errors that name the file and the key path.
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <limits>

#include "faultinj/campaign_file.h"
#include "faultinj/temp_dir.h"

using namespace gpuvp::fi;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;
using Catch::Matchers::StartsWith;
using nlohmann::json;

namespace {
json minimal() {
  return json::parse(R"({"name": "t", "platform": {"preset": "flexgrip"}, "workload": {"name": "vectorAdd"},
                         "targets": ["gpu.sched.*"], "size": {"count": 10}})");
}
std::string error_of(const json& j) {
  try {
    parse_campaign(j, "c.json");
  } catch (const CampaignError& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

TEST_CASE("campaign file: a full document") {
  const std::string text = R"({
    // comments are allowed
    "name": "vectorAdd 2 SMs",
    "platform": {"preset": "flexgrip", "set": {"sm.count": 2, "scheduler.impl": "rtl"}},
    "workload": {"name": "vectorAdd", "launch": "fi32", "seed": 5},
    "targets": ["gpu.sched.*"], "exclude": ["gpu.sched.prng"],
    "fault": {"model": "multi_bit_flip", "bits": 3, "duration": "intermittent", "hold_ns": 2.5},
    "size": {"margin": 0.01, "confidence": 0.99, "p": 0.3},
    "window": {"from_ns": 100, "to_ns": "0x400"},
    "seed": 18446744073709551615, "timeout_factor": 2.5, "workers": 256, "early_stop": false
  })";
  CampaignSpec s = parse_campaign_text(text, "c.json");
  CHECK(s.origin == "c.json");
  CHECK(s.name == "vectorAdd 2 SMs");
  CHECK(s.preset == "flexgrip");
  CHECK(s.set.at("sm.count") == 2);
  CHECK(s.set.at("scheduler.impl") == "rtl");
  REQUIRE(s.workload);
  CHECK(s.workload->launch == "fi32");
  CHECK(s.workload->seed == 5);
  CHECK_FALSE(s.exec);
  CHECK(s.exclude == std::vector<std::string>{"gpu.sched.prng"});
  CHECK(s.fault.model == FaultModel::MultiBitFlip);
  CHECK(s.fault.nbits == 3);
  CHECK(s.fault.duration == Duration::Intermittent);
  CHECK(s.fault.hold_ps == 2500);
  CHECK_FALSE(s.size.count);
  CHECK(s.size.t == 2.576);
  CHECK(s.size.p == 0.3);
  REQUIRE(s.window);
  CHECK(s.window->to_ns == 1024);
  CHECK(s.seed == std::numeric_limits<uint64_t>::max());
  CHECK(s.timeout_factor == 2.5);
  CHECK(s.workers == 256);
  CHECK_FALSE(s.early_stop);
}

TEST_CASE("campaign file: defaults") {
  CampaignSpec s = parse_campaign(minimal(), "c.json");
  CHECK(s.workload->seed == 1);
  CHECK(s.workload->launch.empty());
  CHECK(s.fault.model == FaultModel::BitFlip);
  CHECK(s.fault.duration == Duration::Transient);
  CHECK(*s.size.count == 10);
  CHECK_FALSE(s.window);
  CHECK(s.seed == 1);
  CHECK(s.timeout_factor == 3);
  CHECK(s.workers == 0);
  CHECK(s.early_stop);
  json j = minimal();
  j.erase("workload");
  j["exec"] = {{"kernel", "k"}, {"grid", {1, 1, 1}}};
  CHECK(parse_campaign(j, "c.json").exec->at("kernel") == "k");
}

TEST_CASE("campaign file: errors name the file and the key") {
  json j = minimal();
  j["fault"] = {{"model", "flip"}};
  CHECK_THAT(error_of(j), Equals("c.json: fault.model = \"flip\": unknown (one of bit_flip, multi_bit_flip, "
                                 "stuck_at_0, stuck_at_1, xor_mask, random_value, zero_value)"));
  j = minimal();
  j["size"] = {{"cnt", 3}};
  CHECK_THAT(error_of(j), Equals("c.json: size: unknown key 'cnt' (known: count, margin, confidence, p, exhaustive)"));
  j = minimal();
  j["colour"] = 1;
  CHECK_THAT(error_of(j), StartsWith("c.json: unknown key 'colour' (known: name, platform,"));
  j = minimal();
  j.erase("name");
  CHECK_THAT(error_of(j), Contains("c.json: name: missing"));
  j = minimal();
  j["exec"] = json::object();
  CHECK_THAT(error_of(j), Contains("exactly one of 'workload', 'exec' and 'application'"));
  j.erase("exec");
  j.erase("workload");
  CHECK_THAT(error_of(j), Contains("exactly one of 'workload', 'exec' and 'application'"));
  j = minimal();
  j["targets"] = json::array();
  CHECK_THAT(error_of(j), Contains("c.json: targets = []: empty"));
  j = minimal();
  j["platform"]["set"] = {{"sm", {{"count", 2}}}};
  CHECK_THAT(error_of(j), Contains("c.json: platform.set.sm = "));
  CHECK_THAT(error_of(json::array()), Equals("c.json: not a JSON object"));
}

TEST_CASE("campaign file: an application") {
  json j = minimal();
  j.erase("workload");
  j["application"] = {{"command", {"./app", "in.bin"}}, {"outputs", {"out.txt", {{"file", "o.bin"}, {"type", "f32"}}}},
                      {"timeout_s", 30}};
  const CampaignSpec s = parse_campaign(j, "c.json");
  REQUIRE(s.application);
  CHECK(s.application->command == std::vector<std::string>{"./app", "in.bin"});
  REQUIRE(s.application->outputs.size() == 2);
  CHECK(s.application->outputs[0].path == "out.txt");
  CHECK(s.application->outputs[0].type == "u8");
  CHECK(s.application->outputs[1].path == "o.bin");
  CHECK(s.application->outputs[1].type == "f32");
  CHECK(s.application->timeout_s == 30);
  CHECK(s.application->fork);  // faulty runs forked from golden runs unless the file says false
  CHECK(s.application->workdir.empty());  // no working directory: each run starts in an empty folder
  json with_dir = j;
  with_dir["application"]["workdir"] = "inputs/set1";
  CHECK(parse_campaign(with_dir, "c.json").application->workdir == "inputs/set1");
  with_dir["application"]["workdir"] = "";
  CHECK_THAT(error_of(with_dir), Contains("c.json: application.workdir = \"\": empty"));
  with_dir["application"]["workdir"] = 3;
  CHECK_THAT(error_of(with_dir), Contains("c.json: application.workdir = 3: not a string"));
  with_dir["application"].erase("workdir");
  with_dir["application"]["work_dir"] = "inputs";
  CHECK_THAT(error_of(with_dir), Contains("c.json: application: unknown key 'work_dir' (known: command, outputs, workdir,"));
  json fresh = j;
  fresh["application"]["fork"] = false;
  CHECK_FALSE(parse_campaign(fresh, "c.json").application->fork);
  json bad = j;
  bad["application"]["fork"] = "no";
  CHECK_THAT(error_of(bad), Contains("c.json: application.fork = \"no\": not true or false"));
  bad = j;
  bad["application"]["command"] = json::array();
  CHECK_THAT(error_of(bad), Contains("c.json: application.command = []: not a non-empty list of strings"));
  bad = j;
  bad["application"]["outputs"][1]["type"] = "f16";
  CHECK_THAT(error_of(bad), Contains("c.json: application.outputs[1].type = \"f16\": unknown"));
  bad = j;
  bad["application"]["timeout_s"] = 0;
  CHECK_THAT(error_of(bad), Contains("c.json: application.timeout_s = 0: out of range"));
  // Each run is a process of its own with one transient flip armed at an instant.
  bad = j;
  bad["fault"] = {{"model", "stuck_at_1"}};
  CHECK_THAT(error_of(bad), Contains("c.json: fault.model = \"stuck_at_1\": a campaign on an application flips bits"));
  bad = j;
  bad["trigger"] = {{"event", "block_dispatch"}};
  CHECK_THAT(error_of(bad), Contains("c.json: trigger: a campaign on an application injects at instants of time only"));
  bad = j;
  bad["workload"] = minimal()["workload"];
  CHECK_THAT(error_of(bad), Contains("exactly one of 'workload', 'exec' and 'application'"));
}

TEST_CASE("campaign file: integers") {
  json j = minimal();
  j["seed"] = "010";
  CHECK_THAT(error_of(j), Contains("c.json: seed = \"010\": not an integer"));
  j["seed"] = 1.5;
  CHECK_THAT(error_of(j), Contains("c.json: seed = 1.5: not an integer"));
  j["seed"] = 2.0;
  CHECK_THAT(error_of(j), Contains("not an integer"));
  j["seed"] = "0x";
  CHECK_THAT(error_of(j), Contains("not an integer"));
  j["seed"] = "0x1ffffffffffffffff";
  CHECK_THAT(error_of(j), Contains("not an integer"));
  j["seed"] = true;
  CHECK_THAT(error_of(j), Contains("not an integer"));
  j["seed"] = "12";
  CHECK(parse_campaign(j, "c.json").seed == 12);
  j = minimal();
  j["workers"] = -1;
  CHECK_THAT(error_of(j), Contains("c.json: workers = -1: negative"));
  j["workers"] = 257;
  CHECK_THAT(error_of(j), Contains("c.json: workers = 257: out of range; expected an integer in [0, 256]"));
  j = minimal();
  j["size"] = {{"count", 0}};
  CHECK_THAT(error_of(j), Contains("size.count = 0: out of range"));
}

TEST_CASE("campaign file: fault models and durations") {
  json j = minimal();
  j["fault"] = {{"model", "xor_mask"}, {"mask", "0xff"}};
  CHECK(parse_campaign(j, "c.json").fault.mask == 0xff);
  j["fault"] = {{"model", "xor_mask"}};
  CHECK_THAT(error_of(j), Contains("c.json: fault.mask: missing"));
  j["fault"] = {{"model", "bit_flip"}, {"mask", 3}};
  CHECK_THAT(error_of(j), Contains("fault.mask = 3: only for fault.model xor_mask"));
  j["fault"] = {{"model", "bit_flip"}, {"bits", 2}};
  CHECK_THAT(error_of(j), Contains("fault.bits = 2: only for fault.model multi_bit_flip"));
  j["fault"] = {{"model", "multi_bit_flip"}, {"bits", 65}};
  CHECK_THAT(error_of(j), Contains("fault.bits = 65: out of range"));
  j["fault"] = {{"duration", "intermittent"}};
  CHECK_THAT(error_of(j), Contains("c.json: fault.hold_ns: missing"));
  j["fault"] = {{"duration", "intermittent"}, {"hold_ns", 0}};
  CHECK_THAT(error_of(j), Contains("fault.hold_ns = 0: not > 0"));
  j["fault"] = {{"duration", "transient"}, {"hold_ns", 5}};
  CHECK_THAT(error_of(j), Contains("fault.hold_ns = 5: only for an intermittent fault"));
  j["fault"] = {{"duration", "transient"}, {"hold_ns", 0}};
  CHECK(parse_campaign(j, "c.json").fault.hold_ps == 0);
  j["fault"] = {{"duration", "forever"}};
  CHECK_THAT(error_of(j),
             Contains("fault.duration = \"forever\": unknown (one of transient, intermittent, permanent)"));
}

TEST_CASE("campaign file: size and window") {
  json j = minimal();
  j["size"] = {{"count", 5}, {"margin", 0.01}};
  CHECK_THAT(error_of(j), Contains("c.json: size: give either count, or margin and confidence"));
  j["size"] = json::object();
  CHECK_THAT(error_of(j), Contains("c.json: size: give either count"));
  j["size"] = {{"margin", 0.01}};
  CHECK_THAT(error_of(j), Contains("c.json: size.confidence: missing"));
  j["size"] = {{"margin", 0.6}, {"confidence", 0.95}};
  CHECK_THAT(error_of(j), Contains("size.margin = 0.6: out of range"));
  j["size"] = {{"margin", 0.01}, {"confidence", 0.8}};
  CHECK_THAT(error_of(j), Contains("size.confidence = 0.8: not one of 0.90, 0.95, 0.99"));
  j["size"] = {{"margin", 0.01}, {"confidence", 0.95}, {"p", 1}};
  CHECK_THAT(error_of(j), Contains("size.p = 1: out of range"));
  j["size"] = {{"margin", 0.01}, {"confidence", 0.95}};
  CHECK(parse_campaign(j, "c.json").size.t == 1.96);
  j["window"] = {{"from_ns", 10}, {"to_ns", 10}};
  CHECK_THAT(error_of(j), Contains("window.to_ns = 10: not after window.from_ns"));
  j["window"] = {{"from_ns", 10}};
  CHECK_THAT(error_of(j), Contains("window.to_ns: missing"));
  j.erase("window");
  j["timeout_factor"] = 1;
  CHECK_THAT(error_of(j), Contains("timeout_factor = 1: out of range"));
}

TEST_CASE("campaign file: deep nesting is refused before parsing") {
  std::string deep = R"({"name": "t", "exec": )" + std::string(100000, '[') + std::string(100000, ']') + "}";
  CHECK_THROWS_WITH(parse_campaign_text(deep, "deep.json"), Contains("deep.json:1:86: nested deeper than 64 levels"));
  // Brackets inside strings and comments do not count.
  json j = minimal();
  j["name"] = std::string(200, '[');
  CHECK(parse_campaign_text("// [[[[\n" + j.dump(), "c.json").name.size() == 200);
}

TEST_CASE("campaign file: loading names the file") {
  CHECK_THROWS_WITH(load_campaign("/nonexistent/c.json"), Contains("campaign file /nonexistent/c.json: cannot open"));
  gpuvp::fi::test::TempDir d("campaign_load");
  const std::string path = d("c.json");
  {
    std::ofstream out(path);
    out << "{\"name\": ";
  }
  CHECK_THROWS_WITH(load_campaign(path), Contains(path + ": not valid JSON"));
  {
    std::ofstream out(path);
    out << minimal().dump();
  }
  CHECK(load_campaign(path).origin == path);
}

TEST_CASE("campaign file: the example of docs/campaigns.md parses") {
  std::ifstream in(std::string(GPUVP_SOURCE_DIR) + "/docs/campaigns.md");
  REQUIRE(in);
  std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t start = doc.find("```json\n");
  REQUIRE(start != std::string::npos);
  const size_t end = doc.find("```", start + 8);
  CampaignSpec s = parse_campaign_text(doc.substr(start + 8, end - start - 8), "docs/campaigns.md");
  CHECK(s.name == "vectorAdd 2 SMs");
  CHECK(s.size.t == 1.96);
  CHECK(s.workers == 2);
}

TEST_CASE("campaign file: long or odd values are shown short in messages") {
  json j = minimal();
  j["targets"] = {{"k", std::string(500, 'x')}};
  const std::string e = error_of(j);
  CHECK_THAT(e, Contains("c.json: targets = {\"k\":\"xxx"));
  CHECK_THAT(e, Contains("...: not a list of name globs"));
  CHECK(e.size() < 160);
  j["targets"] = {{"k", std::string("bad \xff utf-8")}};  // dump() would throw on it unless told to replace
  CHECK_THAT(error_of(j), Contains("c.json: targets = {\"k\":\"bad "));
  j["targets"] = {"gpu.*"};
  j["exclude"] = {std::string("\xff"), 4};
  CHECK_THAT(error_of(j), Contains("c.json: exclude[1] = 4: not a string"));
}
