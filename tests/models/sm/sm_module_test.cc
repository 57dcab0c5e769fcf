// The Sm module in a small SystemC testbench: fake scheduler signals and array TLM memories.
// Each test case elaborates its own testbench (CTest runs each case in its own process).
#include <catch2/catch.hpp>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "sw/isa/config_regs.h"
#include "models/sm/sm.h"
#include "sm_test_util.h"

using namespace smtest;
using namespace sc_core;

namespace {

struct TbMem : sc_module {
  tlm_utils::simple_target_socket<TbMem> sock{"sock"};
  std::vector<uint8_t>* data;
  uint64_t base;
  sc_time lat;
  unsigned transactions = 0;
  TbMem(sc_module_name n, std::vector<uint8_t>* d, uint64_t b, sc_time l) : sc_module(n), data(d), base(b), lat(l) {
    sock.register_b_transport(this, &TbMem::bt);
  }
  void bt(tlm::tlm_generic_payload& p, sc_time& delay) {
    ++transactions;
    uint64_t a = p.get_address();
    unsigned n = p.get_data_length();
    if (a < base || a + n > base + data->size()) {
      p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    uint8_t* m = data->data() + (a - base);
    AtomicExtension* at = nullptr;
    p.get_extension(at);
    if (at) {
      uint64_t old = 0;
      std::memcpy(&old, m, n);
      uint64_t nv = apply_atomic(at->op, at->type, old, at->operand, at->compare);
      std::memcpy(m, &nv, n);
      at->old = old;
    } else if (p.is_write()) {
      std::memcpy(m, p.get_data_ptr(), n);
    } else {
      std::memcpy(p.get_data_ptr(), m, n);
    }
    wait(delay + lat);  // the arbiter wrapper waits for the annotated delay
    delay = SC_ZERO_TIME;
    p.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

struct Tb : sc_module {
  sc_signal<bool> en{"en"}, rst{"rst"}, done{"done"};
  sc_signal<uint32_t> nb{"nb"}, bidx{"bidx"}, bx{"bx"}, by{"by"}, bz{"bz"}, gx{"gx"}, gy{"gy"}, gz{"gz"}, shm{"shm"}, tpb{"tpb"};
  std::vector<uint8_t> sys = std::vector<uint8_t>(1 << 16), cfgm = std::vector<uint8_t>(256), cm = std::vector<uint8_t>(4096),
                       gm = std::vector<uint8_t>(1 << 16);
  TbMem imem{"imem", &sys, kCode, sc_time(10, SC_NS)};
  TbMem cfgb{"cfgb", &cfgm, amap::kConfigBase, sc_time(10, SC_NS)};
  TbMem cmem{"cmem", &cm, kConst, sc_time(10, SC_NS)};
  TbMem grd{"grd", &gm, kGlob, sc_time(20, SC_NS)};
  TbMem gwr{"gwr", &gm, kGlob, sc_time(20, SC_NS)};
  Registry reg;
  ErrorSink errors;
  SmConfig cfg;
  std::unique_ptr<Sm> sm;
  unsigned done_pulses = 0;
  sc_time done_at;
  uint32_t blocks = 2, threads = 64;

  SC_HAS_PROCESS(Tb);
  explicit Tb(sc_module_name n) : sc_module(n) {
    cfg.id = 0;
    cfg.num_sms = 1;
    sm = std::make_unique<Sm>("sm", cfg, reg, errors, "gpu.sm0");
    sm->smp_en(en);
    sm->smp_reset(rst);
    sm->num_blocks(nb);
    sm->block_idx(bidx);
    sm->dims.block_x(bx), sm->dims.block_y(by), sm->dims.block_z(bz);
    sm->dims.grid_x(gx), sm->dims.grid_y(gy), sm->dims.grid_z(gz);
    sm->dims.shmem_per_block(shm);
    sm->dims.threads_per_block(tpb);
    sm->smp_done(done);
    sm->imem.bind(imem.sock);
    sm->cfg.bind(cfgb.sock);
    sm->cmem.bind(cmem.sock);
    sm->gmem_rd.bind(grd.sock);
    sm->gmem_wr.bind(gwr.sock);
    SC_THREAD(drive);
    SC_METHOD(count);
    sensitive << done.posedge_event();
    dont_initialize();
  }
  void set_cfg(unsigned i, uint32_t v) { std::memcpy(cfgm.data() + 4 * i, &v, 4); }
  void drive() {
    wait(50, SC_NS);
    nb = blocks;
    bidx = 0;
    bx = threads, by = 1, bz = 1, gx = blocks, gy = 1, gz = 1;
    shm = 256;
    en = true;
    wait(10, SC_NS);
    en = false;
  }
  void count() {
    ++done_pulses;
    done_at = sc_time_stamp();
  }
};

// c[i] = a[i] + b[i] (+ misalign bytes on the store address)
void load_vecadd(Tb& tb, int misalign) {
  Prog p;
  auto ldp = [&](unsigned r, int64_t off) { p.add(Opcode::Ld, DType::U64, {R(r), MA(off)}).mod.space = Space::Param; };
  ldp(1, 0);
  ldp(2, 8);
  ldp(3, 16);
  p.add(Opcode::Mov, DType::U32, {R(4), S(SReg::CtaidX)});
  p.add(Opcode::Mov, DType::U32, {R(5), S(SReg::NtidX)});
  p.add(Opcode::Mov, DType::U32, {R(6), S(SReg::TidX)});
  p.add(Opcode::Mad, DType::S32, {R(7), R(4), R(5), R(6)}).mod.mul = MulMode::Lo;
  p.add(Opcode::Mul, DType::S32, {R(8), R(7), I(4)}).mod.mul = MulMode::Wide;
  p.add(Opcode::Add, DType::U64, {R(1), R(1), R(8)});
  p.add(Opcode::Add, DType::U64, {R(2), R(2), R(8)});
  p.add(Opcode::Add, DType::U64, {R(3), R(3), R(8)});
  p.add(Opcode::Ld, DType::F32, {R(10), M(1)}).mod.space = Space::Global;
  p.add(Opcode::Ld, DType::F32, {R(11), M(2)}).mod.space = Space::Global;
  p.add(Opcode::Add, DType::F32, {R(12), R(10), R(11)});
  p.add(Opcode::St, DType::F32, {M(3, misalign), R(12)}).mod.space = Space::Global;
  p.add(Opcode::Ret, DType::None, {});
  auto bytes = p.encode();
  std::memcpy(tb.sys.data(), bytes.data(), bytes.size());
  tb.set_cfg(gpuvp::cfgreg::kEntryLo, uint32_t(kCode));
  tb.set_cfg(gpuvp::cfgreg::kEntryHi, uint32_t(kCode >> 32));
  tb.set_cfg(gpuvp::cfgreg::kParamSize, 6);
  tb.set_cfg(gpuvp::cfgreg::kNumRegSlots, 16);
  tb.set_cfg(gpuvp::cfgreg::kNumPreds, 1);
  tb.set_cfg(gpuvp::cfgreg::kNumGprs, 16);
  uint64_t a = kGlob, b = kGlob + 0x1000, c = kGlob + 0x2000;
  uint64_t ptrs[3] = {a, b, c};
  for (int i = 0; i < 6; ++i) tb.set_cfg(gpuvp::cfgreg::kParamBase + i, uint32_t(ptrs[i / 2] >> (32 * (i % 2))));
  for (unsigned i = 0; i < tb.blocks * tb.threads; ++i) {
    float x = float(i), y = float(2 * i);
    std::memcpy(tb.gm.data() + 4 * i, &x, 4);
    std::memcpy(tb.gm.data() + 0x1000 + 4 * i, &y, 4);
  }
}

}  // namespace

TEST_CASE("Sm runs a batch and pulses smp_done once", "[sm][systemc]") {
  Tb tb("tb");
  load_vecadd(tb, 0);
  sc_start(1, SC_MS);
  CHECK_FALSE(tb.errors.first);
  CHECK(tb.done_pulses == 1);
  for (unsigned i = 0; i < tb.blocks * tb.threads; ++i) {
    float z;
    std::memcpy(&z, tb.gm.data() + 0x2000 + 4 * i, 4);
    CHECK(z == float(3 * i));
  }
  CHECK(tb.sm->stats().blocks == 2);
  CHECK(tb.sm->stats().thread_insts == 2 * 64 * 16);
  REQUIRE(tb.sm->block_records().size() == 2);
  CHECK(tb.sm->block_records()[1].block == 1);
  CHECK(tb.sm->block_records()[0].end_ps > tb.sm->block_records()[0].start_ps);
  CHECK(tb.done_at.value() >= tb.sm->block_records()[0].end_ps);
  CHECK(tb.reg.contains("gpu.sm0.smem"));
  CHECK(tb.reg.read("gpu.sm0.done") == 1);
  CHECK(tb.reg.read("gpu.sm0.num_blocks") == 2);
  // lane-by-lane global accesses (flexgrip): 2 loads + 1 store per thread
  CHECK(tb.grd.transactions == 2 * 128);
  CHECK(tb.gwr.transactions == 128);
}

TEST_CASE("Sm reports a misaligned store as a DeviceError and never signals done", "[sm][systemc][error]") {
  Tb tb("tb");
  load_vecadd(tb, 1);
  sc_start(1, SC_MS);
  REQUIRE(tb.errors.first);
  const auto& e = *tb.errors.first;
  CHECK(e.kind == "misaligned");
  CHECK(e.lane == 0);
  CHECK(e.block == 0);
  CHECK(e.address == kGlob + 0x2000 + 1);
  CHECK(e.pc > kCode);
  CHECK(e.message.find("pc 0x") != std::string::npos);
  CHECK(tb.done_pulses == 0);
}

TEST_CASE("Sm reports a resource error for an oversized block", "[sm][systemc][error]") {
  Tb tb("tb");
  tb.threads = 2048;
  load_vecadd(tb, 0);
  sc_start(1, SC_MS);
  REQUIRE(tb.errors.first);
  CHECK(tb.errors.first->kind == "resource");
  CHECK(tb.done_pulses == 0);
}
