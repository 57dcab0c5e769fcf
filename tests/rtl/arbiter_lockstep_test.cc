// Lockstep equivalence of rtl/stall_arbiter.sv (through RtlStallArbiter) and the SystemC model
// StallArbiter: the same req/ack signals drive both, for 1..17 requesters; every cycle all pins
// and all registers (through the two registries) are compared. The inputs change at random
// instants inside the cycles (including exactly at the edges), in bursts and after long quiet
// stretches, so the sampling rule and the clock gating of both are exercised.
#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include "lockstep.h"
#include "rtl/stall_arbiter_wrapper.h"

using namespace gpuvp;
using gpuvp::test::RegistryPairs;
using gpuvp::test::Rng;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

const Clock kClk{sc_time(10, SC_NS)};
constexpr unsigned kSeeds = 10;
constexpr uint64_t kCyclesPerSeed = 10000;

struct Pair : sc_core::sc_module {
  unsigned n;
  bool sequential;
  Registry reg_model, reg_rtl;
  sc_core::sc_vector<sc_core::sc_signal<bool>> req, ack, g_m, s_m, g_r, s_r;
  std::unique_ptr<StallArbiter> model;
  std::unique_ptr<RtlStallArbiter> rtl;
  uint64_t cycles_checked = 0, mismatches = 0, grants = 0;
  std::string first_error;

  SC_HAS_PROCESS(Pair);
  Pair(sc_core::sc_module_name nm, unsigned n_, bool sequential_)
      : sc_module(nm), n(n_), sequential(sequential_), req("req", n_), ack("ack", n_), g_m("g_m", n_), s_m("s_m", n_), g_r("g_r", n_),
        s_r("s_r", n_) {
    model = std::make_unique<StallArbiter>("model", n, kClk, reg_model, "gpu.arb", sequential);
    rtl = std::make_unique<RtlStallArbiter>("rtl", n, kClk, reg_rtl, "gpu.arb", sequential);
    for (unsigned i = 0; i < n; ++i) {
      model->req[i](req[i]);
      model->ack[i](ack[i]);
      model->grant[i](g_m[i]);
      model->stall[i](s_m[i]);
      rtl->req[i](req[i]);
      rtl->ack[i](ack[i]);
      rtl->grant[i](g_r[i]);
      rtl->stall[i](s_r[i]);
    }
    ++live;
    SC_THREAD(stimulus);
    SC_THREAD(checker);
  }

  void stimulus() {
    for (unsigned seed = 1; seed <= kSeeds; ++seed) {
      Rng rng(seed * 1000 + n + (sequential ? 500 : 0));
      // Per seed: how busy the requesters are and whether they follow the request protocol.
      const double activity = 0.02 + 0.5 * static_cast<double>(rng.below(100)) / 100.0;
      const bool protocol = rng.chance(0.5);
      const uint64_t end = kClk.cycle(sc_core::sc_time_stamp()) + kCyclesPerSeed;
      while (kClk.cycle(sc_core::sc_time_stamp()) < end) {
        // Quiet stretches test the gating: nothing changes for up to 200 cycles.
        uint64_t gap = rng.chance(0.05) ? rng.below(200) : rng.below(3);
        // An instant inside the cycle, sometimes exactly at the edge.
        uint64_t sub = rng.chance(0.2) ? 0 : rng.below(10);
        wait(kClk.cycles(gap) + sc_time(static_cast<double>(sub), SC_NS));
        for (unsigned i = 0; i < n; ++i) {
          if (!rng.chance(activity)) continue;
          if (protocol) {
            // Raise req when idle; when granted, drop req and pulse ack (the helper below drops it).
            if (g_m[i].read() && req[i].read()) {
              req[i].write(false);
              ack[i].write(true);
            } else if (!req[i].read()) {
              req[i].write(true);
              ack[i].write(false);
            } else {
              ack[i].write(false);
            }
          } else {
            req[i].write(rng.chance(0.5));
            ack[i].write(rng.chance(0.3));
          }
        }
      }
    }
    done = true;  // the checker ends its loop, and the last one to end stops the simulation
  }
  bool done = false;
  static inline unsigned finished = 0, live = 0;

  // Compares at the middle of every cycle, when both cores have settled.
  void checker() {
    wait(kClk.period() / 2);
    RegistryPairs regs(reg_model, reg_rtl);
    CHECK(regs.size() == 4);
    while (!done) {
      ++cycles_checked;
      for (unsigned i = 0; i < n; ++i) {
        if (g_m[i].read() != g_r[i].read() || s_m[i].read() != s_r[i].read()) {
          if (first_error.empty())
            first_error = "pin mismatch at cycle " + std::to_string(kClk.cycle(sc_core::sc_time_stamp())) +
                          " requester " + std::to_string(i);
          ++mismatches;
        }
        if (g_m[i].read()) ++grants;
      }
      std::string d = regs.diff();
      if (!d.empty()) {
        if (first_error.empty())
          first_error = "register mismatch at cycle " + std::to_string(kClk.cycle(sc_core::sc_time_stamp())) + ": " + d;
        ++mismatches;
      }
      wait(kClk.period());
    }
    // Stopped only once every checker has left its loop: a thread still waiting at sc_stop never
    // unwinds, and what it holds on its stack would leak.
    if (++finished == live) sc_core::sc_stop();
  }
};

}  // namespace

TEST_CASE("rtl arbiter: lockstep with the SystemC model, 1..17 requesters, random req/ack, both searches") {
  std::vector<std::unique_ptr<Pair>> pairs;
  for (bool sequential : {false, true})
    for (unsigned n = 1; n <= rtl::max_arbiter_requesters(); ++n)
      pairs.push_back(std::make_unique<Pair>(fmt::format("pair{}{}", sequential ? "s" : "p", n).c_str(), n, sequential));
  sc_core::sc_start();
  for (auto& p : pairs) {
    INFO("requesters " << p->n << (p->sequential ? " sequential" : " parallel") << ": " << p->first_error);
    CHECK(p->mismatches == 0);
    CHECK(p->cycles_checked >= kSeeds * kCyclesPerSeed);
    CHECK(p->grants > 0);
    // Gated: the RTL is clocked on far fewer edges than the simulated cycles.
    CHECK(p->rtl->evaluations() < p->cycles_checked);
  }
}
