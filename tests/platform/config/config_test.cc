// Configuration: presets, overrides, and errors that name the key and the allowed range.
#include <catch2/catch.hpp>

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
  CHECK_THROWS_WITH(c.set("sm.count=0"), Contains("sm.count") && Contains("[1, 16]"));
  CHECK_THROWS_WITH(c.set("sm.count=17"), Contains("sm.count") && Contains("out of range"));
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
