#pragma once
// The register file as the kernels allocated it (docs/campaigns.md, "Register-file targets"): the
// golden run records, per SM, where each warp slot had its registers (an observer of the SMs' retired
// instructions: the warp's base slot, its kernel's register slots per thread and entry), so that
//  - campaigns draw register-file faults over the allocated words only (allocated_words), and
//  - every register-file word of a run maps to its warp, lane and PTX register (place_of).
// Layout (models/sm/simt_core_state.cc): the register file is 64-bit slots, registry word 2s the low
// half of slot s and 2s + 1 its high half; register r, lane l of a warp whose storage starts at slot
// base is slot base + r * 32 + l.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "faultinj/fault_list.h"
#include "models/sm/simt_core.h"

namespace gpuvp::fi {

struct GoldenRun;   // engine.h
struct LaunchSpan;  // engine.h

// Warp slot `warp` of SM `sm` had its registers at slots [base, base + num_regs * 32) for a kernel
// (entry) from first_ps to last_ps (instants of its first and last retired instruction there).
struct RegAlloc {
  unsigned sm = 0, warp = 0;
  uint64_t base = 0;
  uint32_t num_regs = 0;
  uint64_t entry = 0;
  uint64_t first_ps = 0, last_ps = 0;
};

// Records RegAllocs of one SM, passing each instruction on to `next` (another observer of the SM).
class RegAllocRecorder : public RetireObserver {
 public:
  RegAllocRecorder(unsigned sm, uint64_t period_ps, RetireObserver* next) : sm_(sm), period_ps_(period_ps), next_(next) {}
  void retired(RetiredInst& r) override;
  std::vector<RegAlloc>& allocs() { return allocs_; }

 private:
  unsigned sm_;
  uint64_t period_ps_;
  RetireObserver* next_;
  std::vector<RegAlloc> allocs_;
  std::vector<size_t> current_;  // per warp slot: 1 + its record in allocs_ (0: none yet)
};

// "gpu.smN.regs" -> N; none for another name.
std::optional<unsigned> regs_target_sm(const std::string& target);

// The words of SM `sm`'s register file that the golden run's kernels allocated (both halves of each
// slot), sorted and merged.
WordRanges allocated_words(const GoldenRun& g, unsigned sm);

// Where register-file word `word` of SM `sm` was at instant `ps` of the golden run: the warp slot, the
// lane and the PTX register ("%r1"; "%rd1.hi" for the high half of a slot; "slot 5" when the kernel's
// names are unknown). The allocation live at `ps`, else the nearest in time; none when no kernel
// allocated the word.
struct RegPlace {
  unsigned warp = 0, lane = 0;
  std::string reg;
};
std::optional<RegPlace> place_of(const GoldenRun& g, unsigned sm, uint64_t word, uint64_t ps);
// The same in two steps: the allocation (its index in GoldenRun::reg_allocs, -1 for none), then the
// place of the word in it.
int alloc_of(const GoldenRun& g, unsigned sm, uint64_t word, uint64_t ps);
RegPlace place_in(const GoldenRun& g, const RegAlloc& a, uint64_t word);

}  // namespace gpuvp::fi
