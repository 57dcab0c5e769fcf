// Timing digests (Registry::add_timing): what early stops compare besides registered state. Three
// transaction-level arbiters, each with its own registry, get one request each, posted ahead of
// simulated time (a temporally decoupled requester's req rises at now + delay): two at 15 ns, one at
// 35 ns. Before any edge has sampled a request, their registers are all equal (idle); the digests tell
// the late request apart and the two alike equal. Once every transaction is over, the posted instants
// are history and the digests are equal again, so a run that diverged and reconverged still stops.
#include <catch2/catch.hpp>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <memory>
#include <string>

#include "models/arbiter/word_payload.h"
#include "models/arbiter/arbitrated_port.h"

using namespace gpuvp;
using sc_core::sc_time;
using sc_core::SC_NS;

namespace {

const Clock kClk{sc_time(10, SC_NS)};

// Busy for 20 ns per access.
SC_MODULE(FixedTarget) {
  tlm_utils::simple_target_socket<FixedTarget> in{"in"};
  SC_CTOR(FixedTarget) { in.register_b_transport(this, &FixedTarget::b_transport); }
  void b_transport(tlm::tlm_generic_payload& t, sc_time& d) {
    d += sc_time(20, SC_NS);
    t.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

// One read at simulated time 0 with `ahead` as its delay: its req rises at `ahead`.
SC_MODULE(Asker) {
  tlm_utils::simple_initiator_socket<Asker> out{"out"};
  sc_time ahead;
  bool done = false;
  SC_CTOR(Asker) { SC_THREAD(run); }
  void run() {
    uint32_t v = 0;
    tlm::tlm_generic_payload t;
    gpuvp::test::word_payload(t, tlm::TLM_READ_COMMAND, 0, v);
    sc_time d = ahead;
    out->b_transport(t, d);
    done = true;
  }
};

struct Bench {
  Registry reg;
  std::unique_ptr<ArbitratedTarget> arb;
  std::unique_ptr<FixedTarget> mem;
  std::unique_ptr<Asker> asker;
  Bench(const std::string& name, double ahead_ns) {
    ArbitratedTargetConfig cfg;
    cfg.requesters = 1;
    cfg.clock = kClk;
    cfg.path = "gpu.arb";  // the same names in every registry: their state hashes compare
    arb = std::make_unique<ArbitratedTarget>((name + "_arb").c_str(), cfg, reg);
    mem = std::make_unique<FixedTarget>((name + "_mem").c_str());
    asker = std::make_unique<Asker>((name + "_asker").c_str());
    asker->ahead = sc_time(ahead_ns, SC_NS);
    arb->out.bind(mem->in);
    asker->out.bind(arb->in[0]);
  }
  uint64_t timing() const { return reg.timing_digest(sc_core::sc_time_stamp().value()); }
};

}  // namespace

TEST_CASE("timing digest: arbiters with equal registers and requests posted at different instants differ, alike ones are equal, and all are equal once idle again") {
  Bench early("early", 15), late("late", 35), twin("twin", 15);
  sc_core::sc_start(sc_time(5, SC_NS));  // every request posted, none sampled yet (first edge: 10 ns)
  CHECK_FALSE(early.asker->done);
  CHECK(early.reg.state_hash() == late.reg.state_hash());
  CHECK(early.reg.state_hash() == twin.reg.state_hash());
  CHECK(early.timing() != late.timing());
  CHECK(early.timing() == twin.timing());

  // The early request, first seen at edge 20 ns, has been granted at edge 30 ns and holds the port
  // 20 ns; the late one is not granted before edge 50 ns.
  sc_core::sc_start(sc_time(30, SC_NS));
  CHECK(early.asker->done);
  CHECK_FALSE(late.asker->done);
  CHECK(early.timing() != late.timing());
  CHECK(early.timing() == twin.timing());

  sc_core::sc_start(sc_time(200, SC_NS));  // both over long ago: only history left
  CHECK(late.asker->done);
  CHECK(early.reg.state_hash() == late.reg.state_hash());
  CHECK(early.timing() == late.timing());
  CHECK(early.timing() == twin.timing());
}
