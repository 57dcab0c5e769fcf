#pragma once
// A memory as a TLM-2.0 target: global, constant or system memory. Any number of initiators bind
// to `in` (the arbiters on the GPU side, the host bus on the host side). Addresses are absolute
// (sw/isa/address_map.h). Out-of-range and misaligned accesses answer with a TLM error
// response; nothing outside the array is ever touched.
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include <vector>

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "models/common/clock.h"
#include "models/common/params.h"
#include "models/common/registry.h"
#include "models/memory/dram_bus.h"

namespace gpuvp {

struct MemoryConfig {
  enum class Timing { Fixed, ByteSerial, Dram };
  uint64_t base = 0;
  uint64_t size = 0;            // bytes
  unsigned access_width = 4;    // bytes; an access must be aligned to min(length, access_width)
  Timing timing = Timing::Fixed;
  unsigned latency = 1;         // cycles before the first byte
  unsigned bytes_per_cycle = 4; // Fixed and ByteSerial: transfer rate
  double bandwidth_gbps = 1.0;  // Dram: bytes per ns
  double latency_ns = 0;        // Dram: extra access latency
  unsigned recovery = 0;        // Fixed and ByteSerial: cycles a port needs between two accesses
  bool check_bounds = false;    // accesses outside every mapped range are address errors (map())
  Clock clock;

  // The memories' own parameters (memory_params.cc): gmem.*, sysmem.*, cmem.*.
  static MemoryConfig global(const Params& p, const Clock& clk);
  static MemoryConfig system(const Params& p, const Clock& clk);
  static MemoryConfig constant(const Params& p, const Clock& clk);
};

class Memory : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<Memory> in{"in"};

  // Registers the contents as `path` (a Memory target of 32-bit words).
  Memory(sc_core::sc_module_name name, const MemoryConfig& cfg, Registry& reg, const std::string& path);
  ~Memory() override;

  const MemoryConfig& config() const { return cfg_; }
  // Time an access of `bytes` takes on an idle memory (what b_transport adds to the delay; DRAM
  // adds any wait for its data bus).
  sc_core::sc_time access_time(unsigned bytes) const;
  // Time the memory is busy with such an access: all of access_time, except for DRAM, which is
  // pipelined: only the transfer occupies its data bus, exactly bytes / bandwidth (to the ps). A
  // DRAM access holds its port only while it waits for the bus (HoldExtension, b_transport).
  sc_core::sc_time occupancy(unsigned bytes) const;
  // DRAM: the data bus every port and the copy engine share (dram_bus.h); nullptr for the others.
  DramBus* dram_bus() { return cfg_.timing == MemoryConfig::Timing::Dram ? &bus_ : nullptr; }

  // Direct access for loaders and tests (no timing); throws std::out_of_range.
  void peek(uint64_t addr, void* dst, size_t n) const;
  void poke(uint64_t addr, const void* src, size_t n);

  // Bounds protection (global memory): when enabled, timed accesses must fall inside one mapped
  // range, as the driver maps each allocation; anything else answers an address error. Debug
  // accesses (loaders, fault injection) are not checked.
  void set_protection(bool on) { protect_ = on; }
  void map(uint64_t base, uint64_t size);
  void unmap(uint64_t base);
  bool mapped(uint64_t addr, uint64_t len) const;
  // What a timed access of [addr, addr + len) may touch: anything without protection, else a mapped range.
  bool allows(uint64_t addr, uint64_t len) const { return !protect_ || mapped(addr, len); }

  // A permanent stuck-at fault in the cells of the 32-bit word at `addr` (aligned to 4): the bits of
  // `mask` hold the bits of `values` whatever is written, from now on (what the word holds now
  // included). Every later write, timed or not, is forced the same way; reads see the forced cells.
  void stick(uint64_t addr, uint32_t mask, uint32_t values);

  uint64_t reads() const { return reads_; }
  uint64_t writes() const { return writes_; }
  // Bytes of the timed accesses (every port: the GPU's, the host's copies; an atomic reads and
  // writes its bytes), counted when the access is served.
  uint64_t read_bytes() const { return read_bytes_; }
  uint64_t write_bytes() const { return write_bytes_; }

 private:
  void b_transport(int id, tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
  unsigned transport_dbg(int id, tlm::tlm_generic_payload& p);
  bool check(tlm::tlm_generic_payload& p, bool debug);
  void store(uint64_t offset, const void* src, size_t n);
  sc_core::sc_time dram_latency() const;
  void dram_timing(unsigned bytes, const sc_core::sc_time& arrival, sc_core::sc_time& total, sc_core::sc_time& busy);

  // Access recording (Registry::note, docs/campaigns.md "Lifetimes, ACE and pruning"): the bytes
  // [off, off + n) read or written at an instant known to lie in [lo_ps, hi_ps] (memory.cc).
  static uint64_t latest_instant(const tlm::tlm_generic_payload& p);
  void note_timed(const tlm::tlm_generic_payload& p);
  void note_read(uint64_t off, uint64_t n, uint64_t lo_ps, uint64_t hi_ps);
  void note_write(uint64_t off, uint64_t n, uint64_t lo_ps, uint64_t hi_ps);
  void note_words(uint64_t first, uint64_t end, Access kind, uint64_t ps, uint64_t until_ps = 0);

  MemoryConfig cfg_;
  Registry& reg_;
  Target* target_ = nullptr;  // the contents' registration
  uint8_t* data_ = nullptr;  // mmap'd: untouched pages cost nothing
  uint64_t reads_ = 0, writes_ = 0;
  uint64_t read_bytes_ = 0, write_bytes_ = 0;
  bool protect_ = false;
  // The contents' digest (Registry::state_hash): the XOR of word_digest over every word. A store only
  // marks its blocks of kDigestWords words stale; digest() rehashes the stale blocks, so a run that
  // never asks (no fault campaign) pays no hash per stored word, and a campaign's checkpoint pays for
  // the blocks written since the one before.
  static constexpr uint64_t kDigestWords = 64;
  uint64_t digest();
  uint64_t timing_digest(uint64_t now) const;  // the DRAM bus and the ports' recovery
  void mark_stale(uint64_t first_word, uint64_t last_word);
  uint64_t block_digest(uint64_t block) const;
  uint64_t digest_ = 0;                // of the blocks as of their last digest()
  std::vector<uint64_t> block_digest_;  // per block, as of its last digest()
  std::vector<uint8_t> stale_;          // per block: stored to since
  std::vector<uint64_t> stale_list_;    // those blocks
  DramBus bus_;  // DRAM: the shared data bus
  std::vector<sc_core::sc_time> port_free_;  // with a recovery time: when each port may be used again
  std::map<uint64_t, uint64_t> mapped_;  // base -> size
  struct Stuck {
    uint32_t mask = 0, values = 0;
  };
  std::map<uint64_t, Stuck> stuck_;  // word index -> its stuck bits (empty: no cost on writes)
  void force_stuck(uint64_t first_word, uint64_t last_word);
};

}  // namespace gpuvp
