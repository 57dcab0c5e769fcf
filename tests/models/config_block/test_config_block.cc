// Configuration block: reset values, reads/writes and bursts, error responses, latency, and the
// start handshake (en raised by a control write, dropped when the scheduler drops rdy).
#include <catch2/catch.hpp>

#include <tlm_utils/simple_initiator_socket.h>

#include <functional>
#include <memory>
#include <vector>

#include "sw/isa/address_map.h"
#include "models/config_block/config_block.h"

using namespace gpuvp;
using sc_core::sc_time;
using sc_core::SC_NS;

namespace {

const Clock kClk{sc_time(10, SC_NS)};
constexpr uint64_t kBase = amap::kConfigBase;

SC_MODULE(CfgTb) {
  tlm_utils::simple_initiator_socket<CfgTb> out{"out"};
  Registry reg;
  std::unique_ptr<ConfigBlock> cfg;
  sc_core::sc_signal<bool> rdy{"rdy_s"}, kernel_done{"kd_s"}, en{"en_s"};
  sc_core::sc_signal<uint32_t> bpc{"bpc_s"}, gx{"gx_s"}, gy{"gy_s"}, gz{"gz_s"}, bx{"bx_s"}, by{"by_s"}, bz{"bz_s"},
      shmem{"shmem_s"}, dyn{"dyn_s"}, param{"param_s"};
  std::function<void(CfgTb&)> body;
  bool finished = false;
  std::vector<uint64_t> en_rise, en_fall;  // times in ns
  bool fake_scheduler = false;

  SC_HAS_PROCESS(CfgTb);
  CfgTb(sc_core::sc_module_name nm, unsigned latency) : sc_module(nm) {
    ConfigBlockConfig c;
    c.clock = kClk;
    c.latency_cycles = latency;
    cfg = std::make_unique<ConfigBlock>("cfg", c, reg);
    out(cfg->in);
    cfg->rdy(rdy);
    cfg->kernel_done(kernel_done);
    cfg->en(en);
    cfg->launch.blocks_per_core(bpc);
    cfg->launch.grid_x(gx);
    cfg->launch.grid_y(gy);
    cfg->launch.grid_z(gz);
    cfg->launch.block_x(bx);
    cfg->launch.block_y(by);
    cfg->launch.block_z(bz);
    cfg->launch.shmem_size(shmem);
    cfg->launch.dyn_shmem_size(dyn);
    cfg->launch.param_size(param);
    SC_THREAD(run);
    SC_THREAD(scheduler);
    SC_METHOD(watch_en);
    sensitive << en;
    dont_initialize();
  }

  void run() {
    wait(sc_core::SC_ZERO_TIME);
    wait(sc_core::SC_ZERO_TIME);
    if (body) body(*this);
    finished = true;
  }

  // Stands in for the block scheduler: sees en at the next edge, drops rdy there, pulses
  // kernel_done 6 cycles later and raises rdy.
  void scheduler() {
    rdy.write(true);
    for (;;) {
      wait(en.posedge_event());
      if (!fake_scheduler) continue;
      wait(kClk.to_next_edge());
      rdy.write(false);
      wait(kClk.cycles(6));
      kernel_done.write(true);
      rdy.write(true);
      wait(kClk.period());
      kernel_done.write(false);
    }
  }

  void watch_en() {
    uint64_t t = sc_core::sc_time_stamp().value() / sc_time(1, SC_NS).value();
    (en.read() ? en_rise : en_fall).push_back(t);
  }

  // Blocking access; returns the response and the annotated delay.
  tlm::tlm_response_status access(tlm::tlm_command cmd, uint64_t addr, void* data, unsigned len, sc_time* delay_out = nullptr,
                                  unsigned char* be = nullptr, unsigned sw = 0) {
    tlm::tlm_generic_payload t;
    t.set_command(cmd);
    t.set_address(addr);
    t.set_data_ptr(static_cast<unsigned char*>(data));
    t.set_data_length(len);
    t.set_streaming_width(sw ? sw : len);
    t.set_byte_enable_ptr(be);
    t.set_byte_enable_length(be ? 4 : 0);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_time d = sc_core::SC_ZERO_TIME;
    out->b_transport(t, d);
    if (delay_out) *delay_out = d;
    wait(d);
    return t.get_response_status();
  }
  uint32_t rd(unsigned idx) {
    uint32_t v = 0xDEADBEEF;
    CHECK(access(tlm::TLM_READ_COMMAND, kBase + 4 * idx, &v, 4) == tlm::TLM_OK_RESPONSE);
    return v;
  }
  void wr(unsigned idx, uint32_t v) { CHECK(access(tlm::TLM_WRITE_COMMAND, kBase + 4 * idx, &v, 4) == tlm::TLM_OK_RESPONSE); }
};

}  // namespace

TEST_CASE("config block: reset values and reads and writes and bursts and latency", "[config_block]") {
  CfgTb tb("tb", 3);
  tb.body = [](CfgTb& t) {
    // Reset values (block-scheduler.md) through one 64-word burst.
    std::vector<uint32_t> all(64, 0xFFFFFFFF);
    sc_time d;
    CHECK(t.access(tlm::TLM_READ_COMMAND, kBase, all.data(), 256, &d) == tlm::TLM_OK_RESPONSE);
    CHECK(d == sc_time(30, SC_NS));  // 3 cycles of latency
    for (unsigned i = 0; i < 64; ++i) CHECK(all[i] == ConfigBlock::reset_value(i));
    CHECK(all[cfgreg::kBlocksPerCore] == 1);
    CHECK(all[cfgreg::kNumGprs] == 0x0B);
    CHECK(all[cfgreg::kShmemSize] == 0x10);
    CHECK(all[cfgreg::kBlockX] == 16);
    CHECK(all[cfgreg::kBlockY] == 16);
    CHECK(all[cfgreg::kBlockZ] == 1);
    CHECK(all[cfgreg::kGridX] == 3);
    CHECK(all[cfgreg::kGridY] == 1);
    CHECK(all[cfgreg::kGridZ] == 1);
    CHECK(all[cfgreg::kParamSize] == 0);
    // The outputs carry the reset values.
    CHECK(t.bpc.read() == 1);
    CHECK(t.gx.read() == 3);
    CHECK(t.bx.read() == 16);
    CHECK(t.shmem.read() == 0x10);

    // Single writes, and a 3-word burst over grid_x, grid_y, grid_z.
    sc_time t0 = sc_core::sc_time_stamp();
    t.wr(cfgreg::kBlocksPerCore, 8);
    CHECK(sc_core::sc_time_stamp() - t0 == sc_time(30, SC_NS));
    uint32_t g[3] = {10, 3, 2};
    CHECK(t.access(tlm::TLM_WRITE_COMMAND, kBase + 4 * cfgreg::kGridX, g, 12) == tlm::TLM_OK_RESPONSE);
    CHECK(t.rd(cfgreg::kGridY) == 3);
    CHECK(t.gx.read() == 10);
    CHECK(t.gy.read() == 3);
    CHECK(t.gz.read() == 2);
    CHECK(t.bpc.read() == 8);
    // Parameter words (what SMs read through the same socket).
    uint32_t params[4] = {0x1000, 0x2000, 7, 0xFFFFFFFF};
    CHECK(t.access(tlm::TLM_WRITE_COMMAND, kBase + 4 * (cfgreg::kParamBase + 28), params, 16) == tlm::TLM_OK_RESPONSE);
    uint32_t back[4] = {};
    CHECK(t.access(tlm::TLM_READ_COMMAND, kBase + 4 * (cfgreg::kParamBase + 28), back, 16) == tlm::TLM_OK_RESPONSE);
    for (int i = 0; i < 4; ++i) CHECK(back[i] == params[i]);
    // Status is read-only.
    t.wr(cfgreg::kStatus, 0xFF);
    CHECK(t.rd(cfgreg::kStatus) == 0);
    // Registry: named fields, parameter words, and writes through it reach the outputs.
    CHECK(t.reg.read("gpu.cfg.grid_x") == 10);
    CHECK(t.reg.read("gpu.cfg.param[31]") == 0xFFFFFFFF);
    CHECK(t.reg.at("gpu.cfg.reg[21]").width == 32);
    CHECK(t.reg.contains("gpu.cfg.en"));
    t.reg.write("gpu.cfg.block_x", 32);
    wait(sc_core::SC_ZERO_TIME);
    wait(sc_core::SC_ZERO_TIME);
    CHECK(t.bx.read() == 32);
    CHECK(t.rd(cfgreg::kBlockX) == 32);
    // Debug transport: no latency, same data.
    tlm::tlm_generic_payload p;
    uint32_t v = 0;
    p.set_command(tlm::TLM_READ_COMMAND);
    p.set_address(kBase + 4 * cfgreg::kGridZ);
    p.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
    p.set_data_length(4);
    CHECK(t.out->transport_dbg(p) == 4);
    CHECK(v == 2);
  };
  sc_core::sc_start(sc_time(10, sc_core::SC_US));
  CHECK(tb.finished);
}

TEST_CASE("config block: misaligned and out-of-range and unsupported accesses are errors", "[config_block]") {
  CfgTb tb("tb", 1);
  tb.body = [](CfgTb& t) {
    uint32_t v[4] = {0x55, 0x55, 0x55, 0x55};
    using tlm::TLM_ADDRESS_ERROR_RESPONSE;
    CHECK(t.access(tlm::TLM_WRITE_COMMAND, kBase + 2, v, 4) == TLM_ADDRESS_ERROR_RESPONSE);      // misaligned
    CHECK(t.access(tlm::TLM_WRITE_COMMAND, kBase, v, 2) == TLM_ADDRESS_ERROR_RESPONSE);          // short
    CHECK(t.access(tlm::TLM_WRITE_COMMAND, kBase, v, 6) == TLM_ADDRESS_ERROR_RESPONSE);          // partial word
    CHECK(t.access(tlm::TLM_READ_COMMAND, kBase + 256, v, 4) == TLM_ADDRESS_ERROR_RESPONSE);     // past the end
    CHECK(t.access(tlm::TLM_WRITE_COMMAND, kBase + 252, v, 8) == TLM_ADDRESS_ERROR_RESPONSE);    // straddles the end
    CHECK(t.access(tlm::TLM_READ_COMMAND, kBase - 4, v, 4) == TLM_ADDRESS_ERROR_RESPONSE);       // below
    CHECK(t.access(tlm::TLM_READ_COMMAND, ~uint64_t{3}, v, 4) == TLM_ADDRESS_ERROR_RESPONSE);    // far away
    CHECK(t.access(tlm::TLM_WRITE_COMMAND, kBase, v, 0) == TLM_ADDRESS_ERROR_RESPONSE);          // empty
    unsigned char be[4] = {0xFF, 0, 0xFF, 0};
    CHECK(t.access(tlm::TLM_WRITE_COMMAND, kBase, v, 4, nullptr, be) == tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    CHECK(t.access(tlm::TLM_WRITE_COMMAND, kBase, v, 8, nullptr, nullptr, 4) == tlm::TLM_BURST_ERROR_RESPONSE);
    CHECK(t.access(tlm::TLM_IGNORE_COMMAND, kBase + 2, v, 4) == tlm::TLM_OK_RESPONSE);
    // Nothing was written by the failed accesses.
    CHECK(t.rd(cfgreg::kBlocksPerCore) == 1);
    CHECK(t.rd(cfgreg::kNumGprs) == 0x0B);
    CHECK(t.rd(63) == 0);
    CHECK(t.cfg->reg(0) == 1);
    // Debug transport checks too.
    tlm::tlm_generic_payload p;
    p.set_command(tlm::TLM_READ_COMMAND);
    p.set_address(kBase + 1);
    p.set_data_ptr(reinterpret_cast<unsigned char*>(v));
    p.set_data_length(4);
    CHECK(t.out->transport_dbg(p) == 0);
    CHECK(p.get_response_status() == TLM_ADDRESS_ERROR_RESPONSE);
  };
  sc_core::sc_start(sc_time(10, sc_core::SC_US));
  CHECK(tb.finished);
}

TEST_CASE("config block: a control write raises en until the scheduler drops rdy", "[config_block]") {
  CfgTb tb("tb", 3);
  tb.fake_scheduler = true;
  tb.body = [](CfgTb& t) {
    CHECK(!t.en.read());
    // Write issued at 0 ns; it completes after 3 cycles: en rises at 30 ns. The scheduler sees it
    // at edge 4 (40 ns) and drops rdy; en drops with it.
    t.wr(cfgreg::kControl, 1);
    CHECK(sc_core::sc_time_stamp() == sc_time(30, SC_NS));
    wait(sc_time(1, SC_NS));
    CHECK(t.en.read());
    CHECK(t.rd(cfgreg::kStatus) == 1);  // busy (read completes at 60 ns)
    // A second start while busy is refused and flagged.
    t.wr(cfgreg::kControl, 1);
    wait(sc_core::SC_ZERO_TIME);
    CHECK((t.rd(cfgreg::kStatus) & 4u) == 4u);
    // kernel_done at 40 + 60 = 100 ns: status done, not busy.
    wait(sc_time(200, SC_NS));
    CHECK(t.rd(cfgreg::kStatus) == 6);  // done + the error of the refused start
    // A new start clears done and error.
    t.wr(cfgreg::kControl, 1);
    wait(sc_core::SC_ZERO_TIME);
    CHECK(t.rd(cfgreg::kStatus) == 1);
    wait(sc_time(200, SC_NS));
    CHECK(t.rd(cfgreg::kStatus) == 2);
    CHECK(t.cfg->starts() == 2);
  };
  sc_core::sc_start(sc_time(10, sc_core::SC_US));
  CHECK(tb.finished);
  REQUIRE(tb.en_rise.size() == 2);
  REQUIRE(tb.en_fall.size() == 2);
  CHECK(tb.en_rise[0] == 30);
  CHECK(tb.en_fall[0] == 40);
  CHECK(tb.en_fall[1] - tb.en_rise[1] <= 10);  // held until the next edge, where rdy drops
}
