// The transaction-level arbiter against the pin-level StallArbiter behind the same wrapper: the
// same random traffic (temporally decoupled requesters, random hold times, pipelined latencies) goes
// to both, and every transaction must reach the resource at the same instant, every requester finish
// at the same instant, and the statistics and registers agree, with and without register flips.
#include <catch2/catch.hpp>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <memory>
#include <random>
#include <vector>

#include "models/arbiter/word_payload.h"
#include "models/arbiter/arbitrated_port.h"

using namespace gpuvp;
using sc_core::sc_time;
using sc_core::SC_NS;

namespace {

const Clock kClk{sc_time(10, SC_NS)};

// Busy for `hold` ns of `total`; both drawn from the address (the same for both arbiters).
SC_MODULE(RandomTarget) {
  tlm_utils::simple_target_socket<RandomTarget> in{"in"};
  std::vector<std::pair<uint64_t, sc_time>> seen;  // (address, instant)
  SC_CTOR(RandomTarget) { in.register_b_transport(this, &RandomTarget::b_transport); }
  void b_transport(tlm::tlm_generic_payload& t, sc_time& d) {
    seen.emplace_back(t.get_address(), sc_core::sc_time_stamp());
    const uint64_t a = t.get_address();
    const unsigned hold = 5 * unsigned(a % 7), total = hold + 10 * unsigned(a / 7 % 3);
    d += sc_time(total, SC_NS);
    HoldExtension* h = nullptr;
    t.get_extension(h);
    if (h) h->valid = true, h->hold = sc_time(hold, SC_NS);
    t.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

// A requester running ahead of simulated time by a random amount before each transaction.
SC_MODULE(Requester) {
  tlm_utils::simple_initiator_socket<Requester> out{"out"};
  unsigned id = 0, count = 0, seed = 0;
  std::vector<sc_time> done;  // local completion instant of each transaction
  SC_CTOR(Requester) { SC_THREAD(run); }
  void run() {
    std::mt19937 rng(seed);
    sc_time local = sc_core::SC_ZERO_TIME;  // ahead of sc_time_stamp()
    for (unsigned k = 0; k < count; ++k) {
      local += sc_time(double(rng() % 40), SC_NS) + sc_time(double(rng() % 3), sc_core::SC_PS);
      if (rng() % 8 == 0) {  // synchronise now and then, as an SM at the end of its quantum
        sc_core::wait(local);
        local = sc_core::SC_ZERO_TIME;
      }
      uint32_t v = 0;
      tlm::tlm_generic_payload t;
      gpuvp::test::word_payload(t, tlm::TLM_READ_COMMAND, rng() % 64, v);
      ReleaseExtension rel;
      t.set_extension(&rel);
      sc_time d = local;
      out->b_transport(t, d);
      t.clear_extension(&rel);
      local = d;
      done.push_back(sc_core::sc_time_stamp() + d);
      CHECK(rel.valid);
    }
  }
};

struct Bench {
  std::unique_ptr<ArbitratedTarget> arb;
  std::unique_ptr<RandomTarget> mem;
  std::vector<std::unique_ptr<Requester>> reqs;
};

Bench make(Registry& reg, const std::string& path, bool pins, unsigned n, bool sequential) {
  Bench b;
  ArbitratedTargetConfig cfg;
  cfg.requesters = n;
  cfg.clock = kClk;
  cfg.path = path;
  cfg.sequential_search = sequential;
  ArbitratedTarget::CoreFactory f;
  if (pins)
    f = [&reg, path, sequential](const char* nm, unsigned k) -> std::unique_ptr<StallArbiterCore> {
      return std::make_unique<StallArbiter>(nm, k, kClk, reg, path, sequential);
    };
  b.arb = std::make_unique<ArbitratedTarget>((path + "_wrap").c_str(), cfg, reg, f);
  b.mem = std::make_unique<RandomTarget>((path + "_mem").c_str());
  b.arb->out.bind(b.mem->in);
  for (unsigned i = 0; i < n; ++i) {
    b.reqs.push_back(std::make_unique<Requester>((path + "_req" + std::to_string(i)).c_str()));
    b.reqs[i]->id = i;
    b.reqs[i]->count = 60;
    b.reqs[i]->seed = 1000 + i;
    b.reqs[i]->out.bind(b.arb->in[i]);
  }
  return b;
}

// Flips the same register bit of both arbiters at the same random instants.
SC_MODULE(Flipper) {
  Registry* reg = nullptr;
  unsigned n = 1, flips = 0, seed = 77;
  SC_CTOR(Flipper) { SC_THREAD(run); }
  void run() {
    std::mt19937 rng(seed);
    static const char* kRegs[] = {"state", "last", "grant", "stall"};
    for (unsigned k = 0; k < flips; ++k) {
      // Never on a clock edge: a write at the instant of an edge races with the edge's evaluation
      // (process order within a delta is unspecified), for the pin-level arbiter as for any RTL.
      sc_core::wait(sc_time(double(50 + 10 * (rng() % 40) + 1 + rng() % 8), SC_NS) +
                    sc_time(double(rng() % 2), sc_core::SC_PS));
      const std::string r = kRegs[rng() % 4];
      const unsigned width = r == "state" ? 2 : r == "last" ? reg->at("pin." + r).width : n;
      const unsigned bit = unsigned(rng() % width);
      reg->flip("pin." + r, bit);
      reg->flip("tl." + r, bit);
    }
  }
};

void compare(unsigned n, bool sequential, unsigned flips, unsigned seed = 77) {
  Registry reg;
  Bench pin = make(reg, "pin", true, n, sequential);
  Bench tl = make(reg, "tl", false, n, sequential);
  Flipper fl("flipper");
  fl.reg = &reg;
  fl.n = n;
  fl.flips = flips;
  fl.seed = seed;
  sc_core::sc_start(sc_time(200, sc_core::SC_US));

  REQUIRE(tl.mem->seen.size() == pin.mem->seen.size());
  for (size_t k = 0; k < pin.mem->seen.size(); ++k) {
    INFO("transaction " << k);
    CHECK(tl.mem->seen[k] == pin.mem->seen[k]);
  }
  for (unsigned i = 0; i < n; ++i) {
    INFO("requester " << i);
    CHECK(tl.reqs[i]->done == pin.reqs[i]->done);
    CHECK(tl.arb->stats(i).grants == pin.arb->stats(i).grants);
    CHECK(tl.arb->stats(i).stall_cycles == pin.arb->stats(i).stall_cycles);
    CHECK(tl.arb->stats(i).wait_cycles == pin.arb->stats(i).wait_cycles);
    CHECK(tl.arb->transactions(i) == pin.arb->transactions(i));
  }
  for (const char* r : {"state", "last", "grant", "stall"})
    CHECK(reg.read(std::string("tl.") + r) == reg.read(std::string("pin.") + r));
  if (flips == 0)
    for (unsigned i = 0; i < n; ++i) CHECK(tl.reqs[i]->done.size() == 60);
}

}  // namespace

TEST_CASE("transaction arbiter: same grants, instants and statistics as the pin-level arbiter, 5 requesters") {
  compare(5, false, 0);
}

TEST_CASE("transaction arbiter: same as the pin-level arbiter with the sequential search") { compare(4, true, 0); }

TEST_CASE("transaction arbiter: same as the pin-level arbiter when its registers are flipped at random instants") {
  compare(3, false, 40);
}

TEST_CASE("transaction arbiter: same as the pin-level arbiter under flips, sequential search, 5 requesters") {
  compare(5, true, 120, 4242);
}
