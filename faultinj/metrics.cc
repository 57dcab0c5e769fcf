#include "faultinj/metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

namespace gpuvp::fi {

Interval wilson(uint64_t k, uint64_t n, double z) {
  if (n == 0) return {0, 1};
  const double nn = static_cast<double>(n);
  const double p = static_cast<double>(k) / nn;
  const double z2 = z * z;
  const double denom = 1 + z2 / nn;
  const double center = (p + z2 / (2 * nn)) / denom;
  const double half = z * std::sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn)) / denom;
  return {std::max(0.0, center - half), std::min(1.0, center + half)};
}

uint64_t ClassCounts::injected() const { return runs - count(Outcome::ToolError); }

double ClassCounts::avf(Outcome o) const {
  const uint64_t den = o == Outcome::ToolError ? runs : injected();
  return den == 0 ? 0.0 : static_cast<double>(count(o)) / static_cast<double>(den);
}

Interval ClassCounts::ci(Outcome o, double z) const {
  return wilson(count(o), o == Outcome::ToolError ? runs : injected(), z);
}

namespace {
// The part of a target name after its owner: "gpu.sm3.warp[5].group_pc" -> owner "sm", rest
// "warp[5].group_pc"; "gpu.l2.tags" -> owner "l2", rest "tags".
struct NameParts {
  std::string owner, rest;
};
NameParts parts_of(const std::string& t) {
  std::string s = t.rfind("gpu.", 0) == 0 ? t.substr(4) : t;
  const size_t dot = s.find('.');
  std::string owner = s.substr(0, dot), rest = dot == std::string::npos ? "" : s.substr(dot + 1);
  // smN, smN_l1d...: the SM index says where, not what.
  if (owner.rfind("sm", 0) == 0 && owner.size() > 2 && std::isdigit(static_cast<unsigned char>(owner[2]))) {
    size_t k = 2;
    while (k < owner.size() && std::isdigit(static_cast<unsigned char>(owner[k]))) ++k;
    rest = owner.substr(k) + (owner.size() > k && !rest.empty() ? "." : "") + rest;  // "_l1d.tags"
    owner = "sm";
  }
  return {owner, rest};
}

bool starts(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

std::string sm_structure(const std::string& rest) {
  if (starts(rest, "regs")) return "register file";
  if (starts(rest, "preds")) return "predicates";
  if (starts(rest, "warp")) return "warp control";
  if (starts(rest, "smem")) return "shared memory";
  // Instruction-output faults (instruction_output.h): a functional unit's results, or an NVBitFI group's.
  if (starts(rest, "inst_output.U_")) return "functional units";
  if (starts(rest, "inst_output.")) return "instruction outputs";
  if (starts(rest, "l1d") || starts(rest, "_l1d") || starts(rest, "l1")) return "L1 data caches";
  if (starts(rest, "em_sensor")) return "aging sensors";  // docs/power.md: wear, not GPU control
  return "SM control";  // state, block_idx, num_blocks, done, ...
}
}  // namespace

std::string structure_of(const std::string& target) {
  if (starts(target, "bus:")) return "bus links";
  const NameParts n = parts_of(target);
  if (n.owner == "sm") return sm_structure(n.rest);
  if (starts(n.owner, "l1d")) return "L1 data caches";
  if (starts(n.owner, "l2")) return "L2 cache";
  if (n.owner == "sched") return "block scheduler";
  if (starts(n.owner, "arb_")) return "arbiters";
  if (n.owner == "cfg") return "configuration block";
  if (n.owner == "gmem") return "global memory";
  if (n.owner == "cmem") return "constant memory";
  if (n.owner == "sysmem") return "system memory";
  return "other";
}

namespace {
void add(ClassCounts& c, const RunPoint& r) {
  ++c.runs;
  ++c.by_outcome[static_cast<int>(r.outcome)];
  if (r.outcome == Outcome::DUE) ++c.by_due[static_cast<int>(r.due)];
}
}  // namespace

AvfTables avf_tables(const std::vector<RunPoint>& runs) {
  AvfTables t;
  for (const RunPoint& r : runs) {
    add(t.all, r);
    add(t.per_target[r.target], r);
    add(t.per_structure[structure_of(r.target)], r);
    add(t.per_kernel[r.kernel.empty() ? kNoLaunch : r.kernel], r);
    if (!r.inst_class.empty()) add(t.per_class[r.inst_class], r);
    if (!r.ptx_reg.empty()) add(t.per_ptx_reg[r.ptx_reg], r);
  }
  return t;
}

double study_mtbf(uint64_t sdc, uint64_t injected, double exec_time) {
  if (sdc == 0 || injected == 0) return std::numeric_limits<double>::infinity();
  const double cross_section = static_cast<double>(sdc) / static_cast<double>(injected);
  return exec_time / cross_section;
}

double fit(double raw_fit_per_bit, uint64_t bits, double avf) {
  return raw_fit_per_bit * static_cast<double>(bits) * avf;
}

double mtbf_hours_of_fit(double f) { return f <= 0 ? std::numeric_limits<double>::infinity() : 1e9 / f; }

std::string format_number(double x, int digits) {
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return fmt::format("{:.{}g}", x, digits);
}

}  // namespace gpuvp::fi
