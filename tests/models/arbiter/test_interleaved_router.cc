// The router of a port per memory slice (interleaved_router.h): a transaction goes to slice
// (address / 128) mod 3 through that slice's own arbiter, so two requesters reaching different
// slices at once are both granted at once, while two reaching one slice still take turns.
// T = 10 ns; each slice's target is busy one cycle.
#include <catch2/catch.hpp>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <memory>
#include <vector>

#include "models/arbiter/word_payload.h"
#include "models/arbiter/arbitrated_port.h"
#include "models/arbiter/interleaved_router.h"

using namespace gpuvp;
using sc_core::sc_time;
using sc_core::SC_NS;

namespace {

SC_MODULE(SliceTarget) {
  tlm_utils::simple_target_socket<SliceTarget> in{"in"};
  std::vector<std::pair<uint64_t, sc_time>> seen;  // address, instant
  SC_CTOR(SliceTarget) {
    in.register_b_transport(this, &SliceTarget::b_transport);
    in.register_transport_dbg(this, &SliceTarget::transport_dbg);
  }
  void b_transport(tlm::tlm_generic_payload& t, sc_time& d) {
    seen.emplace_back(t.get_address(), sc_core::sc_time_stamp());
    d += sc_time(10, SC_NS);
    t.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  unsigned transport_dbg(tlm::tlm_generic_payload& t) {
    seen.emplace_back(t.get_address(), sc_core::SC_ZERO_TIME);
    return t.get_data_length();
  }
};

// Reads each of its addresses at time 0, one after the other.
SC_MODULE(Reader) {
  tlm_utils::simple_initiator_socket<Reader> out{"out"};
  std::vector<uint64_t> addrs;
  SC_CTOR(Reader) { SC_THREAD(run); }
  void run() {
    for (uint64_t a : addrs) {
      uint32_t v = 0;
      tlm::tlm_generic_payload t;
      gpuvp::test::word_payload(t, tlm::TLM_READ_COMMAND, a, v);
      sc_time d = sc_core::SC_ZERO_TIME;
      out->b_transport(t, d);
      wait(d);
    }
  }
};

}  // namespace

TEST_CASE("interleaved router: a transaction reaches its line's slice through that slice's arbiter") {
  Registry reg;
  InterleavedRouter router("router", 2, 3, 128);
  CHECK(router.slice_of(0) == 0);
  CHECK(router.slice_of(127) == 0);
  CHECK(router.slice_of(128) == 1);
  CHECK(router.slice_of(300) == 2);
  CHECK(router.slice_of(384) == 0);
  std::vector<std::unique_ptr<ArbitratedTarget>> arbs;
  std::vector<std::unique_ptr<SliceTarget>> mems;
  for (unsigned s = 0; s < 3; ++s) {
    ArbitratedTargetConfig cfg;
    cfg.requesters = 2;
    cfg.clock = Clock(sc_time(10, SC_NS));
    cfg.path = "arb" + std::to_string(s);
    arbs.push_back(std::make_unique<ArbitratedTarget>(cfg.path.c_str(), cfg, reg));
    mems.push_back(std::make_unique<SliceTarget>(("mem" + std::to_string(s)).c_str()));
    arbs[s]->out.bind(mems[s]->in);
    for (unsigned r = 0; r < 2; ++r) router.port(s, r).bind(arbs[s]->in[r]);
  }
  Reader a("a"), b("b");
  a.addrs = {0x1000 + 0, 0x1000 + 384};    // line 32: slice 2 (32 mod 3); line 35: slice 2
  b.addrs = {0x1000 + 128, 0x1000 + 384};  // line 33: slice 0; then line 35: slice 2
  a.out.bind(router.in[0]);
  b.out.bind(router.in[1]);
  sc_core::sc_start(sc_time(1, sc_core::SC_US));

  // Both ask at 0 on different slices (a: slice 2, b: slice 0): each seen at edge 1 by its own
  // arbiter and granted at edge 2 (20 ns), both; each holds one cycle and writes its ack at 30 ns.
  // Both then ask slice 2 at 30 ns. b's req is seen at edge 4 (40 ns), where slice 2's arbiter also
  // sees a's ack: a was served last and b waits. a's own req rises only when its previous grant falls
  // (40 ns), seen at edge 5: round robin after a gives b the grant at 50 ns; b acks at 60 ns, seen at
  // edge 7, and a is granted two edges after the ack, at 80 ns.
  REQUIRE(mems[2]->seen.size() == 3);
  REQUIRE(mems[0]->seen.size() == 1);
  CHECK(mems[1]->seen.empty());
  CHECK(mems[2]->seen[0] == std::make_pair(uint64_t{0x1000}, sc_time(20, SC_NS)));
  CHECK(mems[0]->seen[0] == std::make_pair(uint64_t{0x1080}, sc_time(20, SC_NS)));
  CHECK(mems[2]->seen[1] == std::make_pair(uint64_t{0x1180}, sc_time(50, SC_NS)));
  CHECK(mems[2]->seen[2] == std::make_pair(uint64_t{0x1180}, sc_time(80, SC_NS)));
  CHECK(arbs[2]->stats(0).grants == 2);
  CHECK(arbs[2]->stats(1).grants == 1);
  CHECK(arbs[0]->stats(1).grants == 1);

  // Debug transport takes the same route, without arbitration.
  uint32_t v = 0;
  tlm::tlm_generic_payload t;
  gpuvp::test::word_payload(t, tlm::TLM_READ_COMMAND, 0x1000 + 256, v);  // line 34: slice 1
  CHECK(a.out->transport_dbg(t) == 4);
  CHECK(mems[1]->seen.size() == 1);
}
