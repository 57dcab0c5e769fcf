// Access recording of the small state outside memories and caches: the stall arbiters (model, pin-level
// and RTL) and the block scheduler's registers read at every instant (state, rdy, kernel_done, smp_en,
// smp_reset) and its prng. A hand-worked arbiter transaction's accesses and live bit-time; and dense
// fault lists run with and without pruning give every fault the same outcome (flexgrip, tx2, RTL arbiters).
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common/subprocess.h"
#include "export_csv.h"
#include "faultinj/lifetimes.h"
#include "faultinj/temp_dir.h"
#include "models/arbiter/stall_arbiter.h"
#include "models/arbiter/transaction_arbiter.h"
#include "platform/forked_json.h"
#include "platform/platform.h"
#include "pruning_compare.h"
#include "recorded_golden.h"

using namespace gpuvp;
using gpuvp::fi::GoldenRun;
using gpuvp::fi::Lifetimes;
using gpuvp::fi::LiveInterval;
using gpuvp::fi::test::TempDir;
using gpuvp::fi::test::access_events;

namespace {

// Requester 0 of two, alone: req rises at 5 ns, the grant is held and ack pulsed at 35 ns. The pin-level
// arbiter (path "p", driven through signals) and the transaction-level one (path "t") side by side.
struct ArbiterBench : sc_core::sc_module {
  sc_core::sc_signal<bool> req[2], ack[2], grant[2], stall[2];
  StallArbiter pins;
  TransactionArbiter direct;
  SC_HAS_PROCESS(ArbiterBench);
  ArbiterBench(sc_core::sc_module_name n, Registry& reg)
      : sc_core::sc_module(n),
        pins("pins", 2, Clock(sc_core::sc_time(10, sc_core::SC_NS)), reg, "p"),
        direct("direct", 2, Clock(sc_core::sc_time(10, sc_core::SC_NS)), reg, "t") {
    for (unsigned i = 0; i < 2; ++i) {
      pins.req[i](req[i]);
      pins.ack[i](ack[i]);
      pins.grant[i](grant[i]);
      pins.stall[i](stall[i]);
    }
    SC_THREAD(drive_pins);
    SC_THREAD(drive_direct);
  }
  void drive_pins() {
    wait(5, sc_core::SC_NS);
    req[0].write(true);
    wait(30, sc_core::SC_NS);  // 35 ns: req falls, ack high for one period
    req[0].write(false);
    ack[0].write(true);
    wait(10, sc_core::SC_NS);
    ack[0].write(false);
  }
  void drive_direct() {
    direct.acquire(0, sc_core::sc_time(5, sc_core::SC_NS));
    direct.release(0, sc_core::sc_time(35, sc_core::SC_NS));
  }
};

}  // namespace

TEST_CASE("state lifetimes: a lone requester's transaction through a stall arbiter, its registers' accesses and live time worked by hand") {
  const nlohmann::json j = json_in_child([] {
    Registry reg;
    ArbiterBench tb("tb", reg);
    const GoldenRun g = fi::test::record_bench(reg, sc_core::sc_time(100, sc_core::SC_NS));
    const std::vector<AccessEvent> log = g.accesses.events();
    const Lifetimes lt(g);
    nlohmann::json out = nlohmann::json::object();
    for (const char* p : {"p", "t"}) {
      nlohmann::json a = nlohmann::json::object();
      for (const char* r : {"state", "last", "grant", "stall"}) {
        const std::string name = fmt::format("{}.{}", p, r);
        a[r] = {{"events", access_events(reg, log, name)}, {"live", lt.ace(name, 0, 100000).live_bit_ps},
                {"observed", reg.at(name).reads_observed}};
      }
      for (uint64_t at : {15000, 30000, 50000}) {
        const LiveInterval iv = lt.interval(fmt::format("{}.last", p), 0, at);
        a["last@" + std::to_string(at)] = fmt::format("{}/{}/{}", int(iv.kind), iv.next_ps, iv.shared);
      }
      out[p] = a;
    }
    return out;
  }, "arbiter bench");
  for (const char* p : {"p", "t"}) {
    INFO(p);
    const nlohmann::json& a = j.at(p);
    // Worked from stall_arbiter.h, period 10 ns: req seen at edge 10 (IDLE -> REQUESTED, stall = 01);
    // edge 20 searches from last + 1 = 0 (last's reset value is N - 1 = 1): reads last, grant = 01,
    // stall = 0, WAITING_ACK; edge 30 changes nothing (skipped); the ack written at 35 is seen at edge
    // 40: last = 0 written whole, grant = 0, stall = 0, IDLE. Every evaluated edge writes stall.
    CHECK(a["last"]["events"] == "R20000 W40000");
    CHECK(a["stall"]["events"] == "W10000 W20000 W40000");
    // state (every edge reads it) and grant (the requesters react to it at once): read at every instant.
    CHECK(a["state"]["events"] == "S0-end");
    CHECK(a["grant"]["events"] == "S0-end");
    for (const char* r : {"state", "last", "grant", "stall"}) CHECK(a[r]["observed"] == true);
    // Live bit-time over [0, 100 ns): last (1 bit) from 0 to its read at 20 ns; then written at 40 ns
    // and never read again. stall never read. state 2 bits and grant 2 bits the whole 100 ns.
    CHECK(a["last"]["live"] == 20000.0);
    CHECK(a["stall"]["live"] == 0.0);
    CHECK(a["state"]["live"] == 200000.0);
    CHECK(a["grant"]["live"] == 200000.0);
    // A fault in last at 15 ns is live (read at 20 ns, shared with every instant since 0); at 30 ns dead
    // (written at 40 ns); at 50 ns dead (never accessed again). Kind: 1 dead, 2 live.
    CHECK(a["last@15000"] == "2/20000/true");
    CHECK(a["last@30000"] == "1/40000/false");
    CHECK(a["last@50000"] == "1/0/false");
  }
}

namespace {

// The targets matching `glob` on the platform of `args` (preset and --set): name, width, words.
struct Named {
  std::string name;
  unsigned width;
  uint64_t words;
};
std::vector<Named> targets_of(const std::string& args, const std::string& glob) {
  const auto r = gpuvp::test::run_gpuvp(fmt::format("targets {} --match '{}'", args, glob));
  INFO(r.err);
  REQUIRE(r.status == 0);
  std::vector<Named> out;
  std::istringstream in(r.out);
  std::string line;
  const std::regex row(R"(^(\S+)\s+(register|memory)\s+([0-9]+) bits( x ([0-9]+) words)?)");
  for (std::smatch m; std::getline(in, line);)
    if (std::regex_search(line, m, row))
      out.push_back({m[1].str(), unsigned(std::stoul(m[3].str())), m[5].matched ? std::stoull(m[5].str()) : 1});
  REQUIRE(!out.empty());
  return out;
}

// A campaign head (without targets) of vectorAdd fi32 on `preset` with `set` (JSON object text).
std::string head_of(const std::string& preset, const std::string& set) {
  return fmt::format(R"({{"name": "state dense", "platform": {{"preset": "{}", "set": {}}},
  "workload": {{"name": "vectorAdd", "launch": "fi32"}}, "workers": 2, )",
                     preset, set);
}

// Every bit of every register matching the globs (of a table, the 6 low bits of its first 2 words) at `instants` clock edges spread over the execution
// window (an odd stride, so that they fall in every phase), as a listed-fault campaign. CI's list
// (fewer instants, from the callers) keeps a third of those bits at each instant.
std::string dense_list(const TempDir& d, const std::string& name, const std::string& preset, const std::string& set,
                       const std::string& args, const std::vector<std::string>& globs, unsigned instants) {
  const std::string head = head_of(preset, set);
  const auto [from, to] = fi::test::golden_window(d, head, "gpu.sched.*");
  const double period = 1e6 / (preset == "flexgrip" ? 100.0 : 1300.0);  // the presets' clocks (MHz)
  const uint64_t edges = uint64_t(double(to - from) / period);
  const uint64_t stride = (edges / instants) | 1;
  std::string csv = "target,idx,bit,trigger,time_ps\n";
  uint64_t j = 0;  // the place of a (register, word, bit) in the full list
  for (const std::string& g : globs)
    for (const Named& t : targets_of(args, g)) {
      const uint64_t words = std::min<uint64_t>(t.words, 2);                 // a table's first words
      const unsigned bits = t.words > 1 ? std::min(t.width, 6u) : t.width;  // and their low bits
      for (uint64_t k = 0; k < edges; k += stride)
        for (uint64_t w = 0; w < words; ++w)
          for (unsigned b = 0; b < bits; ++b)
            if (fi::test::kept(k / stride, j + w * bits + b, 3))
              csv += fmt::format("{},{},{},time,{}\n", t.name, w, b, from + uint64_t(double(k) * period));
      j += words * bits;
    }
  fi::test::write_file(d(name + ".csv"), csv);
  return head + fmt::format(R"("faults": "{}")", d(name + ".csv"));
}

// The dense list run without pruning, then with it, once without and once with early stop: a fault in
// an arbiter's `last` that ends the kernel a cycle late leaves registered state equal to the golden
// run's once `last` is rewritten, and only the arbiters' timing digests keep such a run from stopping
// early as masked. What pruning did, from the run without early stop (the same with it).
fi::test::Compared same_outcomes(const std::string& name, const std::string& preset, const std::string& set,
                                 const std::string& args, const std::vector<std::string>& globs, unsigned instants) {
  TempDir d("state-dense-" + name);  // one folder per test: ctest runs them at once
  const std::string campaign = dense_list(d, name, preset, set, args, globs, instants);
  fi::test::Compared c;
  for (bool early_stop : {true, false}) {
    INFO("early stop " << early_stop);
    std::vector<fi::test::Row> rows[2];
    fi::test::run_both(d, name, campaign, rows, early_stop);
    REQUIRE(rows[0].size() > 30);
    c = fi::test::compare_runs(rows);
  }
  return c;
}

}  // namespace

TEST_CASE("state pruning: dense faults in the stall arbiters' registers give the same outcome with and without pruning (flexgrip, 2 SMs)") {
  // last and stall at 60 instants (stall always dead, last live or dead by its search and ack edges),
  // state and grant (read at every instant: each fault runs) at 6; CI's lists: 14 and 6 instants.
  const std::string set = R"({"sm.count": 2})", args = "--preset flexgrip --set sm.count=2";
  fi::test::Compared c = same_outcomes("flexgrip-arb", "flexgrip", set, args, {"gpu.arb_*.last", "gpu.arb_*.stall"},
                                     fi::test::ci_or_dense(14u, 60u));
  // stall is half of the bits and always dead, last dead between its ack's write and its next search.
  CHECK(c.dead > c.n / 2);
  CHECK(c.shared > 0);
  c = same_outcomes("flexgrip-arb-held", "flexgrip", set, args, {"gpu.arb_*.state", "gpu.arb_*.grant"},
                     6u);
  CHECK(c.dead == 0);
  CHECK(c.shared == 0);
  CHECK(c.not_masked > 0);
}

TEST_CASE("state pruning: dense faults in the RTL stall arbiters' registers give the same outcome with and without pruning (flexgrip, 2 SMs)") {
  const std::string set = R"({"sm.count": 2, "arbiter.impl": "rtl"})";
  const fi::test::Compared c = same_outcomes("flexgrip-rtl-arb", "flexgrip", set, "--preset flexgrip --set sm.count=2 --set arbiter.impl=rtl",
                                             {"gpu.arb_*.last", "gpu.arb_*.stall", "gpu.arb_cfg.state"},
                                             fi::test::ci_or_dense(12u, 40u));
  CHECK(c.dead > c.n / 2);  // as the model's: stall always dead, last between an ack and a search
  CHECK(c.shared > 0);
  CHECK(c.not_masked > 0);
}

TEST_CASE("state pruning: dense faults in the stall arbiters' registers and the dispatcher's counters give the same outcome with and without pruning (tx2)") {
  // The copy engine's busy flag: written only (dead); the dispatcher's used_* counters and block
  // counters: read at every instant (each fault runs).
  const fi::test::Compared c =
      same_outcomes("tx2-arb", "tx2", "{}", "--preset tx2",
                    {"gpu.arb_*.last", "gpu.arb_*.stall", "gpu.arb_gmem_rd.grant", "gpu.ce.busy", "gpu.sched.used_blocks",
                     "gpu.sched.work.assigned"},
                    fi::test::ci_or_dense(5u, 24u));
  CHECK(c.dead > c.n / 5);  // stall, busy and last between an ack and a search; the counters run
  CHECK(c.not_masked > 0);
}

TEST_CASE("state pruning: the block scheduler's registers read at every instant and its prng give the same outcome with and without pruning (flexgrip, random policy)") {
  const std::string set = R"({"sm.count": 2, "scheduler.policy": "random"})";
  const fi::test::Compared c =
      same_outcomes("flexgrip-sched", "flexgrip", set, "--preset flexgrip --set sm.count=2 --set scheduler.policy=random",
                    {"gpu.sched.state", "gpu.sched.rdy", "gpu.sched.kernel_done", "gpu.sched.smp_*", "gpu.sched.prng"}, 8);
  CHECK(c.not_masked > 0);
  CHECK(c.shared > 0);  // two instants of a live interval between the registers' accesses
}

namespace {

const char* kOneParamPtx = R"(
.version 8.0
.target sm_75
.address_size 64
.visible .entry one(.param .u32 a)
{
  ret;
}
)";

// Two launches of a one-parameter kernel (1 block) on flexgrip, 1 SM, recorded: the configuration
// block's events and the kernels' windows.
nlohmann::json record_two_launches() {
  return json_in_child([] {
    Platform p(Config::preset("flexgrip"));
    GoldenRun g;
    p.registry().record_accesses(&g.accesses);
    p.run([&](rt::Runtime& rt) {
      auto m = rt.load_module(kOneParamPtx, "one.ptx");
      for (uint32_t v : {7u, 9u}) rt.launch(m, "one", {1}, {32}, rt::KernelArgs().u32(v));
      rt.synchronize();
    });
    p.registry().record_accesses(nullptr);
    nlohmann::json out = nlohmann::json::object();
    for (const char* r : {"entry_lo", "param[0]", "param[1]", "control", "status", "reg[21]", "grid_x", "en"})
      out[r] = access_events(p.registry(), g.accesses, std::string("gpu.cfg.") + r);
    out["windows"] = p.kernel_windows();
    out["observed"] = p.registry().at("gpu.cfg.entry_lo").reads_observed && p.registry().at("gpu.cfg.en").reads_observed;
    return out;
  }, "two launches");
}

std::vector<uint64_t> instants(const std::string& events, const std::string& kinds) {
  std::vector<uint64_t> t;
  std::istringstream in(events);
  std::string e;
  std::string seen;
  while (in >> e) {
    seen += e[0];
    t.push_back(std::stoull(e.substr(1)));
  }
  CHECK(seen == kinds);
  return t;
}

}  // namespace

TEST_CASE("state lifetimes: the configuration block's registers over two launches follow the launch path worked by hand") {
  const nlohmann::json j = record_two_launches();
  INFO(j.dump());
  const auto win = j.at("windows").get<std::vector<std::pair<uint64_t, uint64_t>>>();
  REQUIRE(win.size() == 2);
  CHECK(j.at("observed") == true);
  // Per launch (sw/runtime/host_runtime.cc, models/sm/sm.cc): the host writes registers 0..20 in one
  // burst, the parameters, then control = 1; the SM reads entry and parameters at its batch's start,
  // inside the kernel's window. So each launch register is written, then read once, and dead from that
  // read to the next launch's write.
  for (const char* r : {"entry_lo", "param[0]"}) {
    INFO(r);
    const auto t = instants(j.at(r), "WRWR");
    REQUIRE(t.size() == 4);
    CHECK(t[0] < t[1]);
    CHECK(t[1] > win[0].first);
    CHECK(t[1] < win[0].second);
    CHECK(t[2] >= win[0].second);  // the next launch waits for the first kernel
    CHECK(t[3] > win[1].first);
    CHECK(t[3] < win[1].second);
  }
  // A 1-word parameter list: param[1] never accessed; the spare registers neither.
  CHECK(j.at("param[1]") == "");
  CHECK(j.at("reg[21]") == "");
  // control: the burst (value 0) and the start (1), per launch; no one reads it.
  CHECK(instants(j.at("control"), "WWWW").size() == 4);
  // status: the burst skips it (read-only); a start reads it (busy?) and writes busy; kernel_done reads
  // it (and keeps its other bits).
  const auto st = instants(j.at("status"), "RWRRWR");
  REQUIRE(st.size() == 6);
  CHECK(st[0] == st[1]);
  CHECK(st[1] < st[2]);  // the first kernel's end, before the second start
  CHECK(st[2] < st[3]);
  CHECK(st[3] == st[4]);
  // The scheduler's input pins and en: read at every instant (one span; the writes inside it change nothing).
  CHECK(j.at("grid_x").get<std::string>().rfind("S0-end W", 0) == 0);
  CHECK(j.at("en") == "S0-end");
}
