#include "sw/isa/config_regs.h"

#include <fmt/format.h>

namespace gpuvp::cfgreg {

namespace {
using A = Access;
// Reset values: block-scheduler.md (blocks_per_core 1, num_gprs 0x0B, shmem_size 0x10, block 16x16x1,
// grid 3x1) plus grid_z = 1.
constexpr Field kFields[] = {
    {kBlocksPerCore, "blocks_per_core", 1, A::ReadWrite,
     "blocks resident on one SM per batch (the runtime writes the most that fit, or the requested value)"},
    {kNumGprs, "num_gprs", 0x0B, A::ReadWrite, "32-bit registers per thread (the assembler's liveness estimate)"},
    {kShmemSize, "shmem_size", 0x10, A::ReadWrite, "static shared memory per block (bytes)"},
    {kParamSize, "param_size", 0, A::ReadWrite, "kernel parameter words"},
    {kDynShmemSize, "dyn_shmem_size", 0, A::ReadWrite, "dynamic shared memory per block (bytes)"},
    {kBlockX, "block_x", 16, A::ReadWrite, "block dimension x"},
    {kBlockY, "block_y", 16, A::ReadWrite, "block dimension y"},
    {kBlockZ, "block_z", 1, A::ReadWrite, "block dimension z"},
    {kGridX, "grid_x", 3, A::ReadWrite, "grid dimension x"},
    {kGridY, "grid_y", 1, A::ReadWrite, "grid dimension y"},
    {kGridZ, "grid_z", 1, A::ReadWrite, "grid dimension z"},
    {kEntryLo, "entry_lo", 0, A::ReadWrite, "kernel entry, low word: system memory address of its first instruction"},
    {kEntryHi, "entry_hi", 0, A::ReadWrite, "kernel entry, high word"},
    {kControl, "control", 0, A::Start,
     "a write with bit 0 set starts the kernel (raises the scheduler's `en` until `rdy` falls); reads return the value written"},
    {kStatus, "status", 0, A::ReadOnly,
     "bit 0 busy, bit 1 done (sticky until the next start), bit 2 error (start while busy)"},
    {kLocalBytes, "local_bytes", 0, A::ReadWrite, "local memory per thread (bytes)"},
    {kNumRegSlots, "num_reg_slots", 0, A::ReadWrite, "64-bit register slots per thread (the SM's register file layout)"},
    {kNumPreds, "num_preds", 0, A::ReadWrite, "predicate slots per thread"},
    {kStream, "stream", 0, A::ReadWrite, "reserved for the concurrent-kernel mode"},
    {kPriority, "priority", 0, A::ReadWrite, "reserved for the concurrent-kernel mode"},
    {kLaunchId, "launch_id", 0, A::ReadWrite, "sequence number of the launch (statistics, traces)"},
};
constexpr unsigned kNumFields = sizeof(kFields) / sizeof(kFields[0]);

const char* access_text(Access a) {
  switch (a) {
    case A::ReadOnly: return "read only";
    case A::Start: return "read/write, starts";
    default: return "read/write";
  }
}
}  // namespace

const Field* fields(unsigned* count) {
  *count = kNumFields;
  return kFields;
}

const Field* field(unsigned index) {
  for (const Field& f : kFields)
    if (f.index == index) return &f;
  return nullptr;
}

std::string name(unsigned index) {
  if (const Field* f = field(index)) return f->name;
  if (index >= kParamBase) return fmt::format("param[{}]", index - kParamBase);
  return fmt::format("reg[{}]", index);
}

uint32_t reset_value(unsigned index) {
  const Field* f = field(index);
  return f ? f->reset : 0;
}

Access access(unsigned index) {
  const Field* f = field(index);
  return f ? f->access : Access::ReadWrite;
}

std::string reference_markdown() {
  std::string s = "| index | field | reset | access | meaning |\n|---|---|---|---|---|\n";
  for (const Field& f : kFields)
    s += fmt::format("| {} | {} | {:#x} | {} | {} |\n", f.index, f.name, f.reset, access_text(f.access), f.doc);
  s += fmt::format("| {}..{} | reg[i] | 0x0 | read/write | unused |\n", kLaunchId + 1, kParamBase - 1);
  s += fmt::format("| {:#x}..{:#x} | param[0..{}] | 0x0 | read/write | kernel parameter words (at most {} bytes) |\n",
                   unsigned(kParamBase), kParamBase + kParamWords - 1, kParamWords - 1, kParamWords * 4);
  return s;
}

}  // namespace gpuvp::cfgreg
