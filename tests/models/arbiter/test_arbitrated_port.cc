// ArbitratedTarget: three initiators share a fake memory with a 3-cycle latency (T = 10 ns).
#include <catch2/catch.hpp>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <memory>
#include <vector>

#include "models/arbiter/word_payload.h"
#include "models/arbiter/arbitrated_port.h"

using namespace gpuvp;
using sc_core::sc_time;
using sc_core::SC_NS;

namespace {

const Clock kClk{sc_time(10, SC_NS)};

struct Access {
  uint64_t addr;
  sc_time at;
  sc_time delay_in;
};

SC_MODULE(FakeMemory) {
  tlm_utils::simple_target_socket<FakeMemory> in{"in"};
  sc_time latency = sc_time(30, SC_NS);
  std::vector<Access> log;
  std::vector<uint32_t> mem = std::vector<uint32_t>(16, 0);
  SC_CTOR(FakeMemory) { in.register_b_transport(this, &FakeMemory::b_transport); }
  void b_transport(tlm::tlm_generic_payload& t, sc_time& d) {
    log.push_back({t.get_address(), sc_core::sc_time_stamp(), d});
    uint32_t* p = reinterpret_cast<uint32_t*>(t.get_data_ptr());
    if (t.is_write())
      mem[t.get_address() / 4] = *p;
    else
      *p = mem[t.get_address() / 4];
    d += latency;
    t.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

SC_MODULE(Initiator) {
  tlm_utils::simple_initiator_socket<Initiator> out{"out"};
  unsigned id = 0;
  sc_time start_delay;
  sc_time returned, done, freed;
  tlm::tlm_response_status status = tlm::TLM_INCOMPLETE_RESPONSE;
  SC_CTOR(Initiator) { SC_THREAD(run); }
  void run() {
    uint32_t v = 100 + id;
    tlm::tlm_generic_payload t;
    gpuvp::test::word_payload(t, tlm::TLM_WRITE_COMMAND, 4 * id, v);
    ReleaseExtension rel;
    t.set_extension(&rel);
    sc_time d = start_delay;  // temporally decoupled: already ahead of simulated time
    out->b_transport(t, d);
    t.clear_extension(&rel);
    returned = sc_core::sc_time_stamp();
    done = returned + d;
    CHECK(rel.valid);
    freed = rel.at;
    status = t.get_response_status();
  }
};

// pins: the pin-level StallArbiter behind signals; else the transaction-level core (the default).
void three_initiators(bool pins) {
  Registry reg;
  ArbitratedTargetConfig cfg;
  cfg.requesters = 3;
  cfg.clock = kClk;
  cfg.path = "gpu.arb_mem";
  ArbitratedTarget::CoreFactory pin_core;
  if (pins)
    pin_core = [&](const char* nm, unsigned n) -> std::unique_ptr<StallArbiterCore> {
      return std::make_unique<StallArbiter>(nm, n, kClk, reg, cfg.path);
    };
  ArbitratedTarget arb("arb", cfg, reg, pin_core);
  FakeMemory mem("mem");
  std::vector<std::unique_ptr<Initiator>> ini;
  for (unsigned i = 0; i < 3; ++i) {
    ini.push_back(std::make_unique<Initiator>(sc_core::sc_gen_unique_name("ini")));
    ini[i]->id = i;
    ini[i]->out(arb.in[i]);
  }
  // Initiator 2 runs 15 ns ahead: its req is written at 15 ns and first seen at edge 2.
  ini[2]->start_delay = sc_time(15, SC_NS);
  arb.out(mem.in);
  sc_core::sc_start(sc_time(1, sc_core::SC_US));

  // edge 1: REQUESTED (0, 1 stalled); edge 2: grant 0 (2 seen, stalled); memory busy 20..50 ns,
  // ack written at 50 ns, seen at edge 6; edge 7: grant 1 (70..100 ns); ack seen at edge 11;
  // edge 12: grant 2 (120..150 ns).
  REQUIRE(mem.log.size() == 3);
  CHECK(mem.log[0].addr == 0);
  CHECK(mem.log[1].addr == 4);
  CHECK(mem.log[2].addr == 8);
  CHECK(mem.log[0].at == sc_time(20, SC_NS));
  CHECK(mem.log[1].at == sc_time(70, SC_NS));
  CHECK(mem.log[2].at == sc_time(120, SC_NS));
  for (auto& a : mem.log) CHECK(a.delay_in == sc_core::SC_ZERO_TIME);
  // Done (and the port free) when the memory is; the call returns at the grant with the latency
  // annotated.
  const sc_time end[3] = {sc_time(50, SC_NS), sc_time(100, SC_NS), sc_time(150, SC_NS)};
  for (unsigned i = 0; i < 3; ++i) {
    CHECK(ini[i]->done == end[i]);
    CHECK(ini[i]->freed == end[i]);
    CHECK(ini[i]->returned == mem.log[i].at);
  }
  for (unsigned i = 0; i < 3; ++i) {
    CHECK(ini[i]->status == tlm::TLM_OK_RESPONSE);
    CHECK(mem.mem[i] == 100 + i);
    CHECK(arb.stats(i).grants == 1);
    CHECK(arb.transactions(i) == 1);
  }
  CHECK(arb.stats(0).stall_cycles == 1);   // [1, 2)
  CHECK(arb.stats(1).stall_cycles == 6);   // [1, 7)
  CHECK(arb.stats(2).stall_cycles == 10);  // [2, 12)
  CHECK(arb.stats(0).wait_cycles == 0);
  CHECK(arb.stats(1).wait_cycles == 5);
  CHECK(arb.stats(2).wait_cycles == 9);
  // The model's own counters agree with the pin-level measurement.
  const StallArbiterLogic* logic = arb.transaction_core();
  if (pins) {
    auto& core = dynamic_cast<StallArbiter&>(*arb.pin_core());
    for (unsigned i = 0; i < 3; ++i) {
      CHECK(core.stats(i).grants == arb.stats(i).grants);
      CHECK(core.stats(i).stall_cycles == arb.stats(i).stall_cycles);
      CHECK(core.stats(i).wait_cycles == arb.stats(i).wait_cycles);
    }
    logic = &core;
  }
  CHECK(reg.contains("gpu.arb_mem.grant"));
  REQUIRE(logic);
  CHECK(logic->regs().state == StallArbiter::IDLE);
}

}  // namespace

TEST_CASE("arbitrated target: three initiators - order and stalls and total time", "[arbiter][tlm]") {
  three_initiators(false);
}

TEST_CASE("arbitrated target with pins: three initiators - order and stalls and total time", "[arbiter][tlm]") {
  three_initiators(true);
}
