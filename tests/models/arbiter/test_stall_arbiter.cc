// Pin-level traces of the stall arbiter, worked out by hand from the timing documented in
// models/arbiter/stall_arbiter.h (T = 10 ns; edge k at k*T; an input written in [(k-1)T, kT) is
// sampled at edge k; the requester below writes ack h cycles after its grant rose and drops it
// one cycle later).
#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include "models/arbiter/stall_arbiter.h"

using namespace gpuvp;
using sc_core::sc_time;
using sc_core::SC_NS;

namespace {

const Clock kClk{sc_time(10, SC_NS)};

struct Grant {
  unsigned who;
  uint64_t cycle;
};

// A requester: raises req at each of its request times (or at once when the time has passed,
// i.e. in the same instant it wrote ack), waits for its grant, holds it `hold` cycles, then drops
// req and pulses ack for one cycle (a helper drops ack, so the next request may be raised while
// ack is still high).
struct Request {
  sc_time at;
  uint64_t sample_edge = 0;  // edge at which req was first seen
  uint64_t grant_edge = 0;
  bool served = false;
};

SC_MODULE(ArbTb) {
  unsigned n;
  Registry reg;
  sc_core::sc_vector<sc_core::sc_signal<bool>> req;
  sc_core::sc_vector<sc_core::sc_signal<bool, sc_core::SC_MANY_WRITERS>> ack;  // dropped by a helper
  sc_core::sc_vector<sc_core::sc_signal<bool>> grant, stall;
  std::unique_ptr<StallArbiter> arb;
  std::vector<std::vector<Request>> script;
  std::vector<unsigned> hold;
  std::vector<Grant> grants;
  std::vector<bool> seen;

  SC_HAS_PROCESS(ArbTb);
  ArbTb(sc_core::sc_module_name nm, unsigned n_)
      : sc_module(nm), n(n_), req("req", n_), ack("ack", n_), grant("grant", n_), stall("stall", n_),
        script(n_), hold(n_, 1), seen(n_, false) {
    arb = std::make_unique<StallArbiter>("arb", n, kClk, reg, "gpu.arb");
    for (unsigned i = 0; i < n; ++i) {
      arb->req[i](req[i]);
      arb->ack[i](ack[i]);
      arb->grant[i](grant[i]);
      arb->stall[i](stall[i]);
      sc_core::sc_spawn([this, i] { requester(i); });
    }
    SC_METHOD(monitor);
    for (unsigned i = 0; i < n; ++i) sensitive << grant[i];
    dont_initialize();
  }

  void requester(unsigned i) {
    for (auto& r : script[i]) {
      sc_time now = sc_core::sc_time_stamp();
      if (r.at > now) wait(r.at - now);
      r.sample_edge = kClk.cycle(sc_core::sc_time_stamp()) + 1;
      req[i].write(true);
      // The grant of a previous request may still be high (it drops at the ack edge).
      while (grant[i].read()) wait(grant[i].value_changed_event());
      while (!grant[i].read()) wait(grant[i].value_changed_event());
      r.grant_edge = kClk.cycle(sc_core::sc_time_stamp());
      r.served = true;
      wait(kClk.cycles(hold[i]));
      req[i].write(false);
      ack[i].write(true);
      sc_core::sc_spawn([this, i] {
        wait(kClk.period());
        ack[i].write(false);
      });
    }
  }

  void monitor() {
    for (unsigned i = 0; i < n; ++i) {
      bool g = grant[i].read();
      if (g && !seen[i]) grants.push_back({i, kClk.cycle(sc_core::sc_time_stamp())});
      seen[i] = g;
    }
  }

  // No request lost, and at most N-1 grants to others between a request being seen and served.
  void check_fairness() const {
    size_t total = 0;
    for (unsigned i = 0; i < n; ++i) {
      for (auto& r : script[i]) {
        CHECK(r.served);
        unsigned others = 0;
        for (auto& g : grants)
          if (g.cycle > r.sample_edge && g.cycle < r.grant_edge) ++others;
        CHECK(others <= n - 1);
      }
      total += script[i].size();
    }
    CHECK(grants.size() == total);
    // never two grants at once
    unsigned high = 0;
    for (unsigned i = 0; i < n; ++i) high += grant[i].read();
    CHECK(high == 0);
  }
};

std::vector<unsigned> order_of(const std::vector<Grant>& g) {
  std::vector<unsigned> v;
  for (auto& x : g) v.push_back(x.who);
  return v;
}
std::vector<uint64_t> cycles_of(const std::vector<Grant>& g) {
  std::vector<uint64_t> v;
  for (auto& x : g) v.push_back(x.cycle);
  return v;
}

}  // namespace

TEST_CASE("arbiter: four simultaneous requests served in round-robin order", "[arbiter]") {
  ArbTb tb("tb", 4);
  for (unsigned i = 0; i < 4; ++i) tb.script[i] = {Request{sc_core::SC_ZERO_TIME}};
  sc_core::sc_start(sc_time(1000, SC_NS));
  // edge 1: IDLE->REQUESTED (all stalled); edge 2: grant 0; ack of 0 written at 3T, seen at
  // edge 4 -> REQUESTED; edge 5: grant 1; ... grants every h+2 = 3 cycles.
  CHECK(order_of(tb.grants) == std::vector<unsigned>{0, 1, 2, 3});
  CHECK(cycles_of(tb.grants) == std::vector<uint64_t>{2, 5, 8, 11});
  CHECK(tb.arb->stats(0).stall_cycles == 1);   // [1, 2)
  CHECK(tb.arb->stats(1).stall_cycles == 4);   // [1, 5)
  CHECK(tb.arb->stats(2).stall_cycles == 7);   // [1, 8)
  CHECK(tb.arb->stats(3).stall_cycles == 10);  // [1, 11)
  // Waited: each stall interval minus the one arbitration cycle a lone request costs.
  for (unsigned i = 0; i < 4; ++i) CHECK(tb.arb->stats(i).wait_cycles == 3 * i);
  for (unsigned i = 0; i < 4; ++i) CHECK(tb.arb->stats(i).grants == 1);
  CHECK(tb.arb->regs().state == StallArbiter::IDLE);
  CHECK(tb.arb->regs().last == 3);
  tb.check_fairness();
  // Clock gating: edges 1, 2, 4, 5, 7, 8, 10, 11, 13 are the only ones evaluated; an idle
  // arbiter costs nothing more.
  CHECK(tb.arb->evaluations() == 9);
  sc_core::sc_start(sc_time(100, sc_core::SC_US));
  CHECK(tb.arb->evaluations() == 9);
}

TEST_CASE("arbiter: a lone requester waits 0 cycles, the loser of a tie the winner's hold and ack", "[arbiter]") {
  ArbTb tb("tb", 2);
  tb.script[0] = {Request{sc_core::SC_ZERO_TIME}, Request{sc_time(100, SC_NS)}};
  tb.script[1] = {Request{sc_core::SC_ZERO_TIME}};
  sc_core::sc_start(sc_time(1000, SC_NS));
  // Both seen at edge 1 (REQUESTED, both stalled); edge 2 grants 0 (last resets to 1); 0 acks at 3T,
  // seen at edge 4 (grant drops, 1 still stalled); edge 5 grants 1; its ack at 6T is seen at 7 (IDLE).
  // 0 asks again at 100 ns, alone: seen at edge 11 (stalled one cycle), granted at 12.
  CHECK(order_of(tb.grants) == std::vector<unsigned>{0, 1, 0});
  CHECK(cycles_of(tb.grants) == std::vector<uint64_t>{2, 5, 12});
  CHECK(tb.arb->stats(0).stall_cycles == 2);  // [1, 2) + [11, 12)
  CHECK(tb.arb->stats(1).stall_cycles == 4);  // [1, 5)
  CHECK(tb.arb->stats(0).wait_cycles == 0);   // both requests granted one cycle after being seen
  CHECK(tb.arb->stats(1).wait_cycles == 3);   // grant at 5 instead of 2: 0's hold, its ack, the re-arbitration
  CHECK(tb.arb->stats(0).grants == 2);
  CHECK(tb.arb->stats(1).grants == 1);
}

TEST_CASE("arbiter: a request first seen while the arbiter is arbitrating is granted with no stall cycle", "[arbiter]") {
  ArbTb tb("tb", 2);
  tb.script[1] = {Request{sc_core::SC_ZERO_TIME}};
  tb.script[0] = {Request{sc_time(15, SC_NS)}};
  sc_core::sc_start(sc_time(1000, SC_NS));
  // 1 is seen at edge 1 (IDLE -> REQUESTED, 1 stalled); 0 is first seen at edge 2, where the arbiter
  // is REQUESTED already: the search starts after last = 1 (its reset value), so edge 2 grants 0 and
  // 0's stall pin is never high. 0 acks at 3T, seen at 4; edge 5 grants 1.
  CHECK(order_of(tb.grants) == std::vector<unsigned>{0, 1});
  CHECK(cycles_of(tb.grants) == std::vector<uint64_t>{2, 5});
  CHECK(tb.arb->stats(0).grants == 1);
  CHECK(tb.arb->stats(0).stall_cycles == 0);  // no stall interval: the arbitration cycle was 1's
  CHECK(tb.arb->stats(0).wait_cycles == 0);   // not stall - grants = -1: waits are per stall interval
  CHECK(tb.arb->stats(1).stall_cycles == 4);  // [1, 5)
  CHECK(tb.arb->stats(1).wait_cycles == 3);   // 0's hold, its ack and the re-arbitration
}

TEST_CASE("arbiter: requests arriving while another is served and at the ack edge", "[arbiter]") {
  ArbTb tb("tb", 3);
  tb.hold = {2, 5, 2};
  tb.script[1] = {Request{sc_core::SC_ZERO_TIME}, Request{sc_time(75, SC_NS)}};
  tb.script[0] = {Request{sc_time(25, SC_NS)}};
  tb.script[2] = {Request{sc_time(25, SC_NS)}};
  sc_core::sc_start(sc_time(1000, SC_NS));
  // edge 1 REQUESTED, edge 2 grant 1; 0 and 2 seen at edge 3 (stalled); ack 1 written at 7T,
  // seen at edge 8 (1's new request written at 75 ns is masked there); edge 9: scan after 1 ->
  // grant 2; ack 2 at 11T seen at 12; edge 13: grant 0; ack 0 at 15T seen at 16; edge 17:
  // grant 1 (its second request, after exactly N-1 = 2 other grants).
  CHECK(order_of(tb.grants) == std::vector<unsigned>{1, 2, 0, 1});
  CHECK(cycles_of(tb.grants) == std::vector<uint64_t>{2, 9, 13, 17});
  CHECK(tb.arb->stats(0).stall_cycles == 10);  // [3, 13)
  CHECK(tb.arb->stats(1).stall_cycles == 9);   // [1, 2) + [9, 17)
  CHECK(tb.arb->stats(2).stall_cycles == 6);   // [3, 9)
  CHECK(tb.arb->stats(0).wait_cycles == 9);  // 10 - 1
  CHECK(tb.arb->stats(1).wait_cycles == 7);  // (1 - 1) + (8 - 1)
  CHECK(tb.arb->stats(2).wait_cycles == 5);  // 6 - 1
  CHECK(tb.arb->stats(1).grants == 2);
  CHECK(tb.arb->regs().state == StallArbiter::IDLE);
  tb.check_fairness();
}

TEST_CASE("arbiter: all requesters requesting forever are served strictly in turn", "[arbiter]") {
  constexpr unsigned N = 4, R = 5;
  ArbTb tb("tb", N);
  for (unsigned i = 0; i < N; ++i) tb.script[i].assign(R, Request{sc_core::SC_ZERO_TIME});  // re-request at once
  sc_core::sc_start(sc_time(2000, SC_NS));
  REQUIRE(tb.grants.size() == N * R);
  for (unsigned k = 0; k < N * R; ++k) {
    CHECK(tb.grants[k].who == k % N);
    CHECK(tb.grants[k].cycle == 2 + 3 * k);
  }
  // First request stalled from edge 1 to its grant at 2+3i; each of the R-1 re-requests (raised
  // when ack drops, seen one edge later) waits 3N-3 = 9 cycles.
  for (unsigned i = 0; i < N; ++i) {
    CHECK(tb.arb->stats(i).grants == R);
    CHECK(tb.arb->stats(i).stall_cycles == 1 + 3 * i + (R - 1) * 9);
  }
  tb.check_fairness();
}

TEST_CASE("arbiter: registered state and a registry write wakes the arbiter", "[arbiter]") {
  ArbTb tb("tb", 3);
  CHECK(tb.reg.at("gpu.arb.state").width == 2);
  CHECK(tb.reg.at("gpu.arb.last").width == 2);
  CHECK(tb.reg.at("gpu.arb.grant").width == 3);
  CHECK(tb.reg.at("gpu.arb.stall").width == 3);
  CHECK(tb.reg.read("gpu.arb.last") == 2);
  sc_core::sc_start(sc_time(100, SC_NS));
  // A fault forces a grant to requester 1 that nobody asked for: the output follows at once and
  // the next edge (IDLE) clears it.
  tb.reg.write("gpu.arb.grant", 2);
  sc_core::sc_start(sc_time(1, SC_NS));
  CHECK(tb.grant[1].read());
  sc_core::sc_start(sc_time(20, SC_NS));
  CHECK(!tb.grant[1].read());
  CHECK(tb.reg.read("gpu.arb.grant") == 0);
}
