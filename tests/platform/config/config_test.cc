// Configuration: presets, overrides, and errors that name the key and the allowed range.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "models/power/thermal_model.h"
#include "models/sm/sm_caches.h"
#include "platform/config/config.h"

using gpuvp::Config;
using gpuvp::ConfigError;
using Catch::Matchers::Contains;

TEST_CASE("config: presets carry the values of presets.md") {
  Config fg = Config::preset("flexgrip");
  CHECK(fg.i("sm.count") == 1);
  CHECK(fg.i("sm.sps") == 8);
  CHECK(fg.f("gpu.clock_mhz") == 100.0);
  CHECK(fg.s("gmem.model") == "byte_serial");
  CHECK(fg.i("gmem.bytes_per_cycle") == 1);
  CHECK(fg.i("sm.shared_bytes") == 16 * 1024);

  Config tk1 = Config::preset("tk1");
  CHECK(tk1.i("sm.count") == 1);
  CHECK(tk1.i("sm.sps") == 192);
  CHECK(tk1.f("gpu.clock_mhz") == 852.0);
  CHECK(tk1.i("sm.max_blocks") == 16);
  CHECK(tk1.i("sm.shared_bytes") == 48 * 1024);
  CHECK(tk1.f("gmem.bandwidth_gbps") == Approx(14.8));

  Config tx2 = Config::preset("tx2");
  CHECK(tx2.i("sm.count") == 2);
  CHECK(tx2.i("sm.sps") == 128);
  CHECK(tx2.f("gpu.clock_mhz") == 1300.0);
  CHECK(tx2.i("sm.max_blocks") == 32);
  CHECK(tx2.i("sm.shared_bytes") == 64 * 1024);
  CHECK(tx2.i("sm.shared_per_block") == 48 * 1024);
  CHECK(tx2.i("sm.max_threads") == 2048);
  CHECK(tx2.i("sm.max_threads_per_block") == 1024);
  CHECK(tx2.i("sm.registers") == 65536);
  for (auto* c : {&fg, &tk1, &tx2}) CHECK_NOTHROW(c->validate());
}

TEST_CASE("config: --set overrides with type checking") {
  Config c = Config::preset("flexgrip");
  c.set("sm.count=4");
  CHECK(c.i("sm.count") == 4);
  c.set("sm.coalesce=true");
  CHECK(c.b("sm.coalesce"));
  c.set("gpu.clock_mhz=250.5");
  CHECK(c.f("gpu.clock_mhz") == 250.5);
  c.set("scheduler.policy=even_odd");
  CHECK(c.s("scheduler.policy") == "even_odd");
  CHECK(c.to_json()["sm"]["count"] == 4);
}

TEST_CASE("config: bad values name the key and the allowed range") {
  Config c = Config::preset("flexgrip");
  CHECK_THROWS_WITH(c.set("sm.count=0"), Contains("sm.count") && Contains("[1, 64]"));
  CHECK_THROWS_WITH(c.set("sm.count=65"), Contains("sm.count") && Contains("out of range"));
  CHECK_THROWS_WITH(c.set("sm.warp_size=24"), Contains("sm.warp_size") && Contains("power of two"));
  CHECK_THROWS_WITH(c.set("sm.count=two"), Contains("sm.count") && Contains("not an integer"));
  CHECK_THROWS_WITH(c.set("sm.count=2.5"), Contains("not an integer"));
  CHECK_THROWS_WITH(c.set("sm.coalesce=1"), Contains("sm.coalesce") && Contains("true or false"));
  CHECK_THROWS_WITH(c.set("scheduler.policy=fifo"), Contains("scheduler.policy") && Contains("round_robin"));
  CHECK_THROWS_WITH(c.set("sm.cont=2"), Contains("unknown configuration key 'sm.cont'") && Contains("sm.count"));
  CHECK_THROWS_WITH(c.set("nothing"), Contains("key=value"));
  CHECK_THROWS_AS(Config::preset("gtx1080"), ConfigError);
  CHECK_THROWS_WITH(Config::preset("gtx1080"), Contains("flexgrip") && Contains("tx2"));
  // Values survive a failed set unchanged.
  CHECK(c.i("sm.count") == 1);
}

TEST_CASE("config: files merge and cross-key checks") {
  Config c = Config::preset("tk1");
  c.merge(nlohmann::json::parse(R"({"sm": {"count": 3, "latency": {"sfu": 20}}})"), "my.json");
  CHECK(c.i("sm.count") == 3);
  CHECK(c.i("sm.latency.sfu") == 20);
  CHECK_THROWS_WITH(c.merge(nlohmann::json::parse(R"({"sm": {"bogus": 1}})"), "my.json"),
                    Contains("my.json") && Contains("sm.bogus"));
  CHECK_THROWS_WITH(c.merge_file("/nonexistent/x.json"), Contains("/nonexistent/x.json"));
  c.set("sm.max_threads_per_block=1024");
  c.set("sm.max_threads=512");
  CHECK_THROWS_WITH(c.validate(), Contains("sm.max_threads_per_block"));
}

TEST_CASE("config: per-instance keys override the class key for one instance") {
  Config c = Config::preset("tx2");
  c.set("gpu.sm1.warp_policy=gto");
  c.set("gpu.sm1.latency.alu=9");
  c.set("scheduler.kind=batch");  // the batch scheduler has policies (the concurrent one refuses them)
  c.set("gpu.sched.policy=ordered");
  CHECK_NOTHROW(c.validate());
  CHECK(c.params("sm", "gpu.sm1").s("warp_policy") == "gto");
  CHECK(c.params("sm", "gpu.sm0").s("warp_policy") == "rr");
  CHECK(c.params("sm", "gpu.sm1").sub("latency").i("alu") == 9);
  CHECK(c.params("sm", "gpu.sm0").sub("latency").i("alu") == c.i("sm.latency.alu"));
  CHECK(c.params("scheduler", "gpu.sched").s("policy") == "ordered");
  CHECK(c.to_json()["gpu"]["sm1"]["warp_policy"] == "gto");
  // Checked like the class key, named as given.
  CHECK_THROWS_WITH(c.set("gpu.sm1.warp_policy=lottery"),
                    Contains("gpu.sm1.warp_policy = \"lottery\": not an allowed value; expected one of rr, gto"));
  CHECK_THROWS_WITH(c.set("gpu.sm0.latency.alu=0"), Contains("gpu.sm0.latency.alu = 0: out of range"));
  // Keys every SM shares, unknown leaves and malformed instance numbers are not instance keys.
  CHECK_THROWS_WITH(c.set("gpu.sm1.count=3"),
                    Contains("gpu.sm1.count is one value for every instance: set sm.count"));
  CHECK_THROWS_WITH(c.set("gpu.sm1.warp_size=16"),
                    Contains("gpu.sm1.warp_size is one value for every instance: set sm.warp_size"));
  CHECK_THROWS_WITH(c.set("gpu.sm1.nosuch=1"), Contains("unknown configuration key 'gpu.sm1.nosuch'"));
  CHECK_THROWS_WITH(c.set("gpu.sm01.sps=4"), Contains("unknown configuration key"));
  // An instance beyond the SM count is refused when the configuration is complete.
  c.set("gpu.sm2.sps=4");
  CHECK_THROWS_WITH(c.validate(), Contains("gpu.sm2.sps: there is no instance 2 (sm.count = 2)"));
  c.set("sm.count=3");
  CHECK_NOTHROW(c.validate());
  // Cross-key rules hold for each SM with its own values, and name the key that gave the value.
  c.set("gpu.sm1.shared_per_block=131072");
  CHECK_THROWS_WITH(c.validate(), Contains("gpu.sm1.shared_per_block = 131072 exceeds sm.shared_bytes = 65536"));
}

TEST_CASE("config: log.modules sets levels per module path") {
  auto levels = gpuvp::parse_log_modules("gpu.sched=debug,gpu.sm1=trace");
  REQUIRE(levels.size() == 2);
  CHECK(levels[0].first == "gpu.sched");
  CHECK(levels[0].second == gpuvp::log::Level::Debug);
  CHECK(levels[1].first == "gpu.sm1");
  CHECK(levels[1].second == gpuvp::log::Level::Trace);
  Config c = Config::preset("flexgrip");
  c.set("log.modules=gpu.sched=loud");
  CHECK_THROWS_AS(c.validate(), ConfigError);
  c.set("log.modules=gpu.sched");
  CHECK_THROWS_WITH(c.validate(), Contains("log.modules (--log): 'gpu.sched' is not path=level"));
}

TEST_CASE("config: every model declares its keys in its own folder and the schema holds them once") {
  const auto& groups = gpuvp::model_param_groups();
  std::set<std::string> classes;
  for (auto& g : groups) classes.insert(g.cls);
  for (const char* cls : {"sm", "gmem", "sysmem", "cmem", "cfgblock", "scheduler", "host"})
    CHECK(classes.count(cls) == 1);
  std::set<std::string> keys;
  for (auto& d : gpuvp::config_schema()) CHECK(keys.insert(d.key).second);
  CHECK(keys.count("sm.latency.alu") == 1);
  CHECK(keys.count("gmem.check_bounds") == 1);
}

TEST_CASE("config: an integer key takes one spelling of an integer in --set, files and platform.set alike") {
  Config c = Config::preset("flexgrip");
  const std::string msg = "sm.count = 10.0: not an integer; expected an integer in [1, 64]";
  CHECK_THROWS_WITH(c.set("sm.count=1e1"), Contains("--set: " + msg));
  CHECK_THROWS_WITH(c.set("sm.count=10.0"), Contains("--set: " + msg));
  CHECK_THROWS_WITH(c.merge(nlohmann::json::parse(R"({"sm": {"count": 1e1}})"), "my.json"), Contains("my.json: " + msg));
  CHECK_THROWS_WITH(c.set("sm.count", nlohmann::json(10.0), "c.json: platform.set"),
                    Contains("c.json: platform.set: " + msg));
  CHECK(c.i("sm.count") == 1);
  c.set("sm.count=10");
  CHECK(c.i("sm.count") == 10);
  c.merge(nlohmann::json::parse(R"({"sm": {"count": 3}})"), "my.json");
  CHECK(c.i("sm.count") == 3);
}

TEST_CASE("config: scheduler.policy with scheduler.kind = concurrent is refused naming both keys") {
  Config c = Config::preset("tx2");
  CHECK_NOTHROW(c.validate());  // the preset writes the default, round_robin
  c.set("scheduler.policy=even_odd");
  CHECK_THROWS_WITH(c.validate(), Contains("scheduler.policy = even_odd") && Contains("scheduler.kind = concurrent"));
  c.set("scheduler.policy=round_robin");
  c.set("gpu.sched.policy=random");
  CHECK_THROWS_WITH(c.validate(), Contains("gpu.sched.policy = random") && Contains("scheduler.kind = concurrent"));
  c.set("scheduler.kind=batch");
  CHECK_NOTHROW(c.validate());  // the batch scheduler has the policies
}

TEST_CASE("config: copy_engines says what the platform builds") {
  Config c = Config::preset("tx2");
  CHECK(c.i("copy_engines") == 1);
  c.set("copy_engines=0");  // the concurrent mode copies only through its copy engine
  CHECK_THROWS_WITH(c.validate(), Contains("copy_engines = 0") && Contains("scheduler.kind = concurrent"));
  CHECK_THROWS_WITH(c.set("copy_engines=2"), Contains("copy_engines") && Contains("[0, 1]"));
  c.set("scheduler.kind=batch");  // the batch mode has none: copies over the host bus, whatever it says
  CHECK_NOTHROW(c.validate());
  CHECK(Config::preset("flexgrip").i("copy_engines") == 0);
}

TEST_CASE("config: sm.count reaches 64 with the concurrent dispatcher and 16 with the batch scheduler or the RTL") {
  Config c = Config::preset("tx2");
  c.set("sm.count=64");
  CHECK_NOTHROW(c.validate());
  CHECK_THROWS_WITH(c.set("sm.count=65"), Contains("sm.count") && Contains("[1, 64]"));
  c.set("arbiter.impl=rtl");
  CHECK_THROWS_WITH(c.validate(), Contains("sm.count = 64") && Contains("arbiter.impl = rtl"));
  c.set("sm.count=16");
  CHECK_NOTHROW(c.validate());
  Config f = Config::preset("flexgrip");
  f.set("sm.count=16");
  CHECK_NOTHROW(f.validate());
  f.set("sm.count=17");
  CHECK_THROWS_WITH(f.validate(), Contains("sm.count = 17") && Contains("scheduler.kind = concurrent"));
}

// The Fermi-class preset of the published studies run on a GTX 480 (docs/presets in the user guide):
// the issue's figures, and the 16 KiB L1 / 48 KiB shared split as its default.
TEST_CASE("config: the gtx480 preset is a 15-SM Fermi with 2 x 16-lane schedulers and 768 KiB of L2") {
  Config c = Config::preset("gtx480");
  CHECK_NOTHROW(c.validate());
  CHECK(c.i("sm.count") == 15);
  CHECK(c.i("sm.schedulers") == 2);
  CHECK(c.i("sm.sps") == 32);  // 2 x 16 lanes
  CHECK(c.f("gpu.clock_mhz") == 700.0);
  CHECK(c.i("sm.max_threads") == 1536);
  CHECK(c.i("sm.max_blocks") == 8);
  CHECK(c.i("sm.registers") == 32768);
  CHECK(c.i("sm.shared_bytes") == 48 * 1024);
  CHECK(c.i("sm.l1d.size_kib") == 16);
  CHECK(c.i("l2.size_kib") == 768);
  CHECK(c.i("l2.slices") == 6);  // one per memory channel
  CHECK(c.b("l2.slice_ports"));   // a crossbar: the global arbiters have a port per slice
  // MSHRs by Little's law (docs/caches.md): 177.4 GB/s at 700 MHz = 253.4 bytes per cycle, over the L2
  // hit latency, the DRAM latency and a line's transfer, in 128-byte lines: 253.4 x 220.5 / 128 = 436.5.
  CHECK(c.i("l2.mshrs") == 437);
}

TEST_CASE("config: a cache geometry the model would refuse is refused by validation, naming the key") {
  Config c = Config::preset("gtx480");
  c.set("l2.ways=16");  // 768 KiB / (128 B x 16) = 384 sets: not a power of two
  CHECK_THROWS_WITH(c.validate(), Contains("l2.size_kib = 768") && Contains("power of two"));
  Config t = Config::preset("tx2");
  t.set("gpu.sm1.l1d.ways=4");  // 24 KiB in 4 ways: 48 sets
  CHECK_THROWS_WITH(t.validate(), Contains("l1d") && Contains("power of two"));
}

// Kepler's 64 KiB of on-chip memory split between shared memory and the L1 (sm.l1_shared_kib): the
// L1 is what sm.shared_bytes leaves, 64 - 48 = 16 KiB by default, 64 - 32 = 32 KiB, 64 - 16 = 48 KiB
// (96 sets of 4 ways: refused; of 6 ways, 64 sets). Nothing left is refused, naming the key.
TEST_CASE("config: the tk1 L1 follows its shared-memory split") {
  auto l1 = [](const std::vector<std::string>& sets) {
    Config c = Config::preset("tk1");
    for (const auto& s : sets) c.set(s);
    c.validate();
    return gpuvp::SmCaches::from(c.params("sm", "gpu.sm0")).l1d.geometry.size_bytes;
  };
  CHECK(l1({}) == 16 * 1024);
  CHECK(l1({"sm.shared_bytes=32768", "sm.shared_per_block=32768"}) == 32 * 1024);
  CHECK(l1({"sm.shared_bytes=16384", "sm.shared_per_block=16384", "sm.l1d.ways=6"}) == 48 * 1024);
  CHECK_THROWS_WITH(l1({"sm.shared_bytes=16384", "sm.shared_per_block=16384"}),
                    Contains("l1d.size_kib = 48") && Contains("power of two"));
  CHECK_THROWS_WITH(l1({"sm.shared_bytes=65536"}), Contains("l1_shared_kib = 64") && Contains("leaves no L1"));
}

// thermal.initial: ambient, or one temperature per SM; what initial_value writes reads back exactly.
TEST_CASE("config: thermal.initial gives every SM its starting temperature, one per SM") {
  Config c = Config::preset("tk1");  // one SM
  CHECK(gpuvp::power::ThermalParams::from(c.params("thermal", "gpu.thermal")).initial_k.empty());
  const std::vector<double> warm = {351.12345678901234};
  c.set("thermal.initial", gpuvp::power::initial_value(warm), "test");
  c.validate();
  CHECK(gpuvp::power::ThermalParams::from(c.params("thermal", "gpu.thermal")).initial_k == warm);
  c.set("thermal.initial=350,351");
  CHECK_THROWS_WITH(c.validate(), Contains("thermal.initial gives 2 temperatures, the GPU has 1 SMs (sm.count)"));
  for (const char* bad : {"350K", "", "350,", "100", "nan"}) {
    INFO(bad);
    c.set("thermal.initial", std::string(bad), "test");
    CHECK_THROWS_WITH(c.validate(), Contains("thermal.initial: '") && Contains("is not a temperature from 200 to 2000 K"));
  }
}
