// Memory target: contents, timing per model, error responses, atomics, registry view.
#include <catch2/catch.hpp>

#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>

#include <cstring>

#include "models/memory/atomic_extension.h"
#include "models/common/hold_extension.h"
#include "models/memory/memory.h"

using namespace gpuvp;
using sc_core::sc_time;
using sc_core::SC_NS;
using sc_core::SC_PS;

namespace {

struct Initiator : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Initiator> out{"out"};
  explicit Initiator(sc_core::sc_module_name n) : sc_module(n) {}

  tlm::tlm_response_status access(tlm::tlm_command cmd, uint64_t addr, void* data, unsigned len, sc_time& delay,
                                  AtomicExtension* ext = nullptr) {
    tlm::tlm_generic_payload p;
    p.set_command(cmd);
    p.set_address(addr);
    p.set_data_ptr(static_cast<unsigned char*>(data));
    p.set_data_length(len);
    p.set_streaming_width(len);
    p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    if (ext) p.set_extension(ext);
    out->b_transport(p, delay);
    if (ext) p.clear_extension(ext);
    return p.get_response_status();
  }
};

MemoryConfig cfg(MemoryConfig::Timing t) {
  MemoryConfig c;
  c.base = 0x1000;
  c.size = 4096;
  c.access_width = 4;
  c.timing = t;
  c.latency = 2;
  c.bytes_per_cycle = 1;
  c.clock = Clock(100.0);  // 10 ns
  return c;
}

}  // namespace

TEST_CASE("memory: byte-serial timing, contents and errors") {
  Registry reg;
  Memory mem("mem", cfg(MemoryConfig::Timing::ByteSerial), reg, "gpu.gmem");
  Initiator ini("ini");
  ini.out.bind(mem.in);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);

  uint32_t v = 0xDEADBEEF, r = 0;
  sc_time d = sc_core::SC_ZERO_TIME;
  REQUIRE(ini.access(tlm::TLM_WRITE_COMMAND, 0x1010, &v, 4, d) == tlm::TLM_OK_RESPONSE);
  // 2 cycles latency + 4 bytes at one byte per cycle = 6 cycles of 10 ns.
  CHECK(d == sc_time(60, SC_NS));
  d = sc_core::SC_ZERO_TIME;
  REQUIRE(ini.access(tlm::TLM_READ_COMMAND, 0x1010, &r, 4, d) == tlm::TLM_OK_RESPONSE);
  CHECK(r == 0xDEADBEEF);
  // The registry sees the same word: index (0x1010 - 0x1000) / 4.
  CHECK(reg.read("gpu.gmem", 4) == 0xDEADBEEF);
  reg.flip("gpu.gmem", 0, 4);
  REQUIRE(ini.access(tlm::TLM_READ_COMMAND, 0x1010, &r, 4, d) == tlm::TLM_OK_RESPONSE);
  CHECK(r == 0xDEADBEEE);

  // Below the base, past the end, straddling the end, misaligned: error responses.
  CHECK(ini.access(tlm::TLM_READ_COMMAND, 0x0FFC, &r, 4, d) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(ini.access(tlm::TLM_READ_COMMAND, 0x2000, &r, 4, d) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  uint64_t big = 0;
  CHECK(ini.access(tlm::TLM_READ_COMMAND, 0x1FFC, &big, 8, d) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(ini.access(tlm::TLM_READ_COMMAND, 0x1011, &r, 4, d) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  uint16_t h = 0;
  CHECK(ini.access(tlm::TLM_READ_COMMAND, 0x1011, &h, 2, d) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  uint8_t b = 0;
  CHECK(ini.access(tlm::TLM_READ_COMMAND, 0x1013, &b, 1, d) == tlm::TLM_OK_RESPONSE);
  CHECK(b == 0xDE);
  // The last word is reachable.
  CHECK(ini.access(tlm::TLM_WRITE_COMMAND, 0x1FFC, &v, 4, d) == tlm::TLM_OK_RESPONSE);
}

TEST_CASE("memory: fixed and DRAM timing") {
  Registry reg;
  MemoryConfig f = cfg(MemoryConfig::Timing::Fixed);
  f.bytes_per_cycle = 4;
  Memory fixed("fixed", f, reg, "a");
  // 2 + ceil(32/4) = 10 cycles.
  CHECK(fixed.access_time(32) == sc_time(100, SC_NS));
  CHECK(fixed.access_time(1) == sc_time(30, SC_NS));

  MemoryConfig dr = cfg(MemoryConfig::Timing::Dram);
  dr.base = 0x10000;
  dr.latency = 100;
  dr.bandwidth_gbps = 12.8;  // 12.8 bytes/ns: 128 bytes take 10 ns = 1 cycle
  dr.latency_ns = 0;
  Memory dram("dram", dr, reg, "b");
  CHECK(dram.access_time(128) == sc_time(1010, SC_NS));
  // 129 bytes take 129 / 12.8 = 10.078125 ns, to the ps (10079): no rounding to whole cycles.
  CHECK(dram.access_time(129) == sc_time(1010079, SC_PS));
  // DRAM is pipelined: only the transfer occupies it; the latency overlaps.
  CHECK(dram.occupancy(128) == sc_time(10, SC_NS));
  CHECK(dram.occupancy(129) == sc_time(10079, SC_PS));
  CHECK(dram.occupancy(4) == sc_time(313, SC_PS));  // 312.5 ps, rounded up
  // The other models are busy for the whole access.
  CHECK(fixed.occupancy(32) == fixed.access_time(32));
}

TEST_CASE("memory: atomics follow PTX semantics") {
  Registry reg;
  Memory mem("mem", cfg(MemoryConfig::Timing::ByteSerial), reg, "m");
  Initiator ini("ini");
  ini.out.bind(mem.in);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  int32_t init = -5;
  mem.poke(0x1100, &init, 4);
  AtomicExtension ext;
  ext.op = isa::AtomOp::Add;
  ext.type = isa::DType::S32;
  ext.operand = 7;
  uint32_t buf = 0;
  sc_time d = sc_core::SC_ZERO_TIME;
  REQUIRE(ini.access(tlm::TLM_WRITE_COMMAND, 0x1100, &buf, 4, d, &ext) == tlm::TLM_OK_RESPONSE);
  CHECK(static_cast<int32_t>(ext.old) == -5);
  int32_t now = 0;
  mem.peek(0x1100, &now, 4);
  CHECK(now == 2);
  // Read and write both occupy the memory: 2 * (2 + 4) cycles.
  CHECK(d == sc_time(120, SC_NS));

  // Signed min with a negative operand; CAS success and failure; inc wraps at the operand.
  ext.op = isa::AtomOp::Min;
  ext.operand = static_cast<uint32_t>(-9);
  ini.access(tlm::TLM_WRITE_COMMAND, 0x1100, &buf, 4, d, &ext);
  mem.peek(0x1100, &now, 4);
  CHECK(now == -9);
  ext.op = isa::AtomOp::Cas;
  ext.type = isa::DType::B32;
  ext.operand = static_cast<uint32_t>(-9);
  ext.compare = 42;
  ini.access(tlm::TLM_WRITE_COMMAND, 0x1100, &buf, 4, d, &ext);
  mem.peek(0x1100, &now, 4);
  CHECK(now == 42);
  ini.access(tlm::TLM_WRITE_COMMAND, 0x1100, &buf, 4, d, &ext);  // compare -9 != 42: unchanged
  mem.peek(0x1100, &now, 4);
  CHECK(now == 42);
  ext.op = isa::AtomOp::Inc;
  ext.type = isa::DType::U32;
  ext.operand = 42;
  ini.access(tlm::TLM_WRITE_COMMAND, 0x1100, &buf, 4, d, &ext);
  mem.peek(0x1100, &now, 4);
  CHECK(now == 0);  // old >= 42 wraps to 0
  // Float add.
  float fv = 1.5f;
  mem.poke(0x1104, &fv, 4);
  ext.op = isa::AtomOp::Add;
  ext.type = isa::DType::F32;
  float add = 2.25f;
  uint32_t bits;
  std::memcpy(&bits, &add, 4);
  ext.operand = bits;
  ini.access(tlm::TLM_WRITE_COMMAND, 0x1104, &buf, 4, d, &ext);
  mem.peek(0x1104, &fv, 4);
  CHECK(fv == 3.75f);
}

TEST_CASE("memory: with protection, only mapped ranges answer") {
  Registry reg;
  Memory mem("mem", cfg(MemoryConfig::Timing::ByteSerial), reg, "g");
  Initiator ini("ini");
  ini.out.bind(mem.in);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  mem.set_protection(true);
  mem.map(0x1100, 64);
  uint32_t v = 7;
  sc_time d = sc_core::SC_ZERO_TIME;
  CHECK(ini.access(tlm::TLM_WRITE_COMMAND, 0x1100, &v, 4, d) == tlm::TLM_OK_RESPONSE);
  CHECK(ini.access(tlm::TLM_WRITE_COMMAND, 0x113C, &v, 4, d) == tlm::TLM_OK_RESPONSE);    // last word
  CHECK(ini.access(tlm::TLM_READ_COMMAND, 0x1140, &v, 4, d) == tlm::TLM_ADDRESS_ERROR_RESPONSE);  // one past
  CHECK(ini.access(tlm::TLM_READ_COMMAND, 0x10FC, &v, 4, d) == tlm::TLM_ADDRESS_ERROR_RESPONSE);  // one before
  uint64_t big[2];
  CHECK(ini.access(tlm::TLM_READ_COMMAND, 0x1138, big, 16, d) == tlm::TLM_ADDRESS_ERROR_RESPONSE);  // straddles the end
  mem.unmap(0x1100);
  CHECK(ini.access(tlm::TLM_READ_COMMAND, 0x1100, &v, 4, d) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  mem.set_protection(false);
  CHECK(ini.access(tlm::TLM_READ_COMMAND, 0x1100, &v, 4, d) == tlm::TLM_OK_RESPONSE);
}

TEST_CASE("memory: how long an access holds the memory (HoldExtension)") {
  Registry reg;
  MemoryConfig dc = cfg(MemoryConfig::Timing::Dram);
  dc.latency = 100;
  dc.bandwidth_gbps = 3.2;  // 3.2 bytes/ns: 32 bytes take 10 ns = 1 cycle
  Memory dram("dram", dc, reg, "d");
  Memory serial("serial", cfg(MemoryConfig::Timing::ByteSerial), reg, "s");
  Initiator a("a"), b("b");
  a.out.bind(dram.in);
  b.out.bind(serial.in);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  auto access = [](Initiator& ini, unsigned len, AtomicExtension* atom, sc_time& delay, HoldExtension& h) {
    uint64_t buf[4] = {};
    tlm::tlm_generic_payload p;
    p.set_command(atom ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    p.set_address(0x1100);
    p.set_data_ptr(reinterpret_cast<unsigned char*>(buf));
    p.set_data_length(len);
    p.set_streaming_width(len);
    p.set_extension(&h);
    if (atom) p.set_extension(atom);
    delay = sc_core::SC_ZERO_TIME;
    ini.out->b_transport(p, delay);
    p.clear_extension(&h);
    if (atom) p.clear_extension(atom);
    return p.get_response_status();
  };
  sc_time d;
  HoldExtension h;
  // DRAM read of 32 bytes: 1 cycle of transfer + 100 of latency. The bus is idle, so the port is
  // held not at all: the transfer starts at once, and the DRAM controller, not the port, carries it.
  REQUIRE(access(a, 32, nullptr, d, h) == tlm::TLM_OK_RESPONSE);
  CHECK(d == sc_time(1010, SC_NS));
  CHECK(h.valid);
  CHECK(h.hold == sc_core::SC_ZERO_TIME);
  // DRAM atomic of 4 bytes: the read's and the write back's transfers (8 bytes, 2.5 ns) on the bus,
  // then the 100 cycles of latency. It arrives at the same instant as the read above, whose
  // transfer holds the shared data bus until 10 ns: it waits for it, holding its port from 0 to
  // 10 ns, moves its 8 bytes from 10 to 12.5 ns, and its result is there at 12.5 + 1000 ns.
  AtomicExtension ext;
  ext.op = isa::AtomOp::Add;
  ext.operand = 1;
  h = HoldExtension{};
  REQUIRE(access(a, 4, &ext, d, h) == tlm::TLM_OK_RESPONSE);
  CHECK(d == sc_time(1012.5, SC_NS));
  CHECK(h.hold == sc_time(10, SC_NS));
  // Byte-serial: busy for the whole access (2 + 4 cycles), twice for an atomic.
  h = HoldExtension{};
  REQUIRE(access(b, 4, nullptr, d, h) == tlm::TLM_OK_RESPONSE);
  CHECK(h.hold == d);
  CHECK(d == sc_time(60, SC_NS));
  h = HoldExtension{};
  REQUIRE(access(b, 4, &ext, d, h) == tlm::TLM_OK_RESPONSE);
  CHECK(h.hold == sc_time(120, SC_NS));
  CHECK(d == sc_time(120, SC_NS));
}

TEST_CASE("memory: stuck-at cells force what the word holds and every later write") {
  Registry reg;
  Memory mem("mem", cfg(MemoryConfig::Timing::ByteSerial), reg, "g");
  Initiator ini("ini");
  ini.out.bind(mem.in);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  const uint32_t before = 0x12345678;
  mem.poke(0x1100, &before, 4);
  mem.stick(0x1100, 0x80000001u, 0x80000000u);  // bit 31 stuck at 1, bit 0 at 0
  uint32_t v = 0;
  mem.peek(0x1100, &v, 4);
  CHECK(v == 0x92345678u);
  CHECK(reg.at("g").get(0x40) == 0x92345678u);  // the registry's view is the cells'
  sc_time d = sc_core::SC_ZERO_TIME;
  uint32_t w = 0x00000001;
  CHECK(ini.access(tlm::TLM_WRITE_COMMAND, 0x1100, &w, 4, d) == tlm::TLM_OK_RESPONSE);
  CHECK(ini.access(tlm::TLM_READ_COMMAND, 0x1100, &v, 4, d) == tlm::TLM_OK_RESPONSE);
  CHECK(v == 0x80000000u);
  uint8_t byte = 0xff;  // a byte write into the word is forced too; its neighbours keep theirs
  mem.poke(0x1103, &byte, 1);
  mem.peek(0x1100, &v, 4);
  CHECK(v == 0xff000000u);
  const uint32_t next = 0xffffffff;  // the next word has no stuck cell
  mem.poke(0x1104, &next, 4);
  mem.peek(0x1104, &v, 4);
  CHECK(v == 0xffffffffu);
  CHECK_THROWS(mem.stick(0x1102, 1, 1));  // not a word
}

namespace {
// The digest as defined (models/common/registry.h): the XOR of word_digest over every word, read
// back through the registry's view.
uint64_t contents_digest(const Target& t) {
  uint64_t d = 0;
  for (uint64_t i = 0; i < t.count; ++i) d ^= word_digest(i, t.get(i));
  return d;
}
}  // namespace

TEST_CASE("memory: the registry digest equals the digest of the contents after any writes") {
  Registry reg;
  Memory mem("mem", cfg(MemoryConfig::Timing::Fixed), reg, "g");
  Initiator ini("ini");
  ini.out.bind(mem.in);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  const Target& t = reg.at("g");
  CHECK(t.digest() == 0);  // zeroed memory
  const uint64_t pair = 0x1122334455667788ull;
  mem.poke(0x10fc, &pair, 8);  // words 63 and 64: across two digest blocks of 64 words
  CHECK(t.digest() == contents_digest(t));
  CHECK(t.digest() != 0);
  sc_time d = sc_core::SC_ZERO_TIME;
  uint32_t w = 0xdeadbeef;
  CHECK(ini.access(tlm::TLM_WRITE_COMMAND, 0x1ffc, &w, 4, d) == tlm::TLM_OK_RESPONSE);  // the last word
  t.set(5, 0x12345678);
  const uint64_t before_stick = contents_digest(t);
  CHECK(t.digest() == before_stick);
  mem.stick(0x1014, 0x1u, 0x1u);  // word 5's bit 0 stuck at 1 (it was 0): the contents change
  CHECK(t.digest() == contents_digest(t));
  CHECK(t.digest() != before_stick);
  const uint64_t zero = 0;  // everything written back to zero (bit 0 of word 5 stays stuck)
  mem.poke(0x10fc, &zero, 8);
  mem.poke(0x1ffc, &zero, 4);
  mem.poke(0x1014, &zero, 4);
  CHECK(t.digest() == word_digest(5, 1));
}
