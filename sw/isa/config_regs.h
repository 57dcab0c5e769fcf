#pragma once
// The configuration block's registers (docs/config-block.md): the one description the model, the
// runtime and the docs use. Indices 0..9 and 0x20..0x3F are the FlexGripPlus fields of
// block-scheduler.md; the others are gpuvp's additions. The block sits at amap::kConfigBase.
#include <cstdint>
#include <string>

namespace gpuvp::cfgreg {

enum : unsigned {
  kBlocksPerCore = 0,
  kNumGprs = 1,        // 32-bit registers per thread (occupancy)
  kShmemSize = 2,      // static shared memory per block, bytes
  kParamSize = 3,      // kernel parameter words
  kDynShmemSize = 4,
  kBlockX = 5, kBlockY = 6, kBlockZ = 7,
  kGridX = 8, kGridY = 9,
  kGridZ = 10,
  kEntryLo = 11, kEntryHi = 12,  // kernel entry: system memory address
  kControl = 13,                 // write 1: start the kernel (raises the scheduler's en)
  kStatus = 14,                  // bit0 busy, bit1 done (sticky until next start), bit2 error
  kLocalBytes = 15,              // per-thread local memory bytes
  kNumRegSlots = 16,             // 64-bit register slots per thread (decoder's register file)
  kNumPreds = 17,                // predicate slots per thread
  kStream = 18, kPriority = 19,  // concurrent-kernel mode
  kLaunchId = 20,                // sequence number of the launch (statistics, traces)
  kParamBase = 0x20, kParamWords = 32,
  kNumRegs = 64
};

// Status register bits.
enum : uint32_t { kStatusBusy = 1u, kStatusDone = 2u, kStatusError = 4u };

enum class Access : uint8_t {
  ReadWrite,  // plain register; the block's outputs follow writes at once
  ReadOnly,   // writes are ignored
  Start,      // read/write; a write with bit 0 set starts a kernel
};

struct Field {
  unsigned index;
  const char* name;  // registry name under the block's path, and the docs' name
  uint32_t reset;
  Access access;
  const char* doc;
};

// The named registers, in index order (parameter words and unused indices are not listed).
const Field* fields(unsigned* count);
// The field at `index`, or nullptr for a parameter word or an unused index.
const Field* field(unsigned index);
// Registry name of any index: the field's name, "param[i]" or "reg[i]".
std::string name(unsigned index);
uint32_t reset_value(unsigned index);
Access access(unsigned index);
// The register table of docs/config-block.md (a test keeps the two equal).
std::string reference_markdown();

}  // namespace gpuvp::cfgreg
