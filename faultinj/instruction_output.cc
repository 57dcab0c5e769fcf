// Fault model instruction_output: groups, the golden run's occurrences, the injection at the
// instruction (instruction_output.h; docs/campaigns.md, "Instruction-output faults").
#include "faultinj/instruction_output.h"

#include <fmt/format.h>

#include <regex>
#include <stdexcept>

#include "platform/platform.h"

namespace gpuvp::fi {

namespace {
constexpr const char* kGroups[] = {"G_FP64", "G_FP32", "G_LD", "G_PR",  "G_NODEST", "G_OTHERS", "G_GPPR",
                                   "G_GP",   "U_LDST", "U_INT", "U_FP32", "U_FP64", "U_SFU"};
static_assert(sizeof(kGroups) / sizeof(kGroups[0]) == size_t(InstGroup::Count));

constexpr uint32_t bit(InstGroup g) { return uint32_t{1} << unsigned(g); }

bool is_load(const isa::Inst& in) { return in.op == isa::Opcode::Ld || in.op == isa::Opcode::Atom; }

// NVBitFI's class of an instruction with a destination: floating point by precision (its special
// functions, MUFU, are FP32 there), loads, predicate-only integer compares, the rest.
InstGroup nvbitfi_class(const RetiredInst& r) {
  const isa::DType t = r.in->type;
  if (r.cls == InstClass::Fp64 || (r.cls == InstClass::Sfu && t == isa::DType::F64)) return InstGroup::G_FP64;
  if (r.cls == InstClass::Fp32 || (r.cls == InstClass::Sfu && isa::is_float(t))) return InstGroup::G_FP32;
  if (is_load(*r.in)) return InstGroup::G_LD;
  if (r.pred) return InstGroup::G_PR;
  return InstGroup::G_OTHERS;
}

// The functional unit that produced the result (UnitClass; the lanes split into integer and fp32).
uint32_t unit_group(const RetiredInst& r) {
  switch (r.unit) {
    case UnitClass::Ldst: return bit(InstGroup::U_LDST);
    case UnitClass::Sfu: return bit(InstGroup::U_SFU);
    case UnitClass::Fp64: return bit(InstGroup::U_FP64);
    case UnitClass::Lanes: return bit(r.cls == InstClass::Fp32 ? InstGroup::U_FP32 : InstGroup::U_INT);
    default: return 0;
  }
}
}  // namespace

const char* to_string(InstGroup g) { return kGroups[size_t(g)]; }

InstGroup parse_inst_group(const std::string& s) {
  for (size_t i = 0; i < size_t(InstGroup::Count); ++i)
    if (s == kGroups[i]) return InstGroup(i);
  std::string known;
  for (auto* n : kGroups) known += (known.empty() ? "" : ", ") + std::string(n);
  throw std::invalid_argument(fmt::format("instruction group '{}' unknown (one of {})", s, known));
}

uint32_t inst_groups(const RetiredInst& r) {
  if (!r.values && !r.pred) return bit(InstGroup::G_NODEST);
  uint32_t g = bit(InstGroup::G_GPPR) | bit(nvbitfi_class(r)) | unit_group(r);
  if (r.values) g |= bit(InstGroup::G_GP);
  return g;
}

unsigned dest_width(const RetiredInst& r) {
  if (r.pred) return 1;
  const unsigned b = isa::bits_of(r.in->type);
  if (b == 0) return 32;
  const bool wide = (r.in->op == isa::Opcode::Mul || r.in->op == isa::Opcode::Mad) && r.in->mod.mul == isa::MulMode::Wide;
  return wide ? 2 * b : b;
}

std::string inst_output_target(const InstOutputTarget& t) {
  return fmt::format("gpu.sm{}.inst_output.{}", t.sm, to_string(t.group));
}

std::optional<InstOutputTarget> parse_inst_output_target(const std::string& name) {
  static const std::regex re(R"(^gpu\.sm([0-9]{1,4})\.inst_output\.([A-Z_0-9]+)$)");
  // Every faulty run asks about its target: most are not of this kind, and matching the regex
  // allocates (pages a forked run would copy).
  if (name.find(".inst_output.") == std::string::npos) return std::nullopt;
  std::smatch m;
  if (!std::regex_match(name, m, re)) return std::nullopt;
  try {
    return InstOutputTarget{unsigned(std::stoul(m[1].str())), parse_inst_group(m[2].str())};
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

void InstRecorder::retired(RetiredInst& r) {
  const uint32_t groups = inst_groups(r);
  for (InstOccurrences& o : out_) {
    if (!(groups & bit(o.where.group))) continue;
    o.seq.push_back(r.seq);
    o.ps.push_back(r.cycle * period_ps_);
    o.cls.push_back(static_cast<uint8_t>(r.cls));
  }
}

uint64_t corrupt_value(const Fault& f, uint64_t v, unsigned width) {
  const uint64_t wm = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  Fault g = f;
  g.bit = f.bit % width;
  uint64_t out = 0;
  switch (f.model) {
    case FaultModel::RandomValue: out = f.mask; break;
    case FaultModel::ZeroValue: out = 0; break;
    default: out = apply(g, v, width);
  }
  return (v & ~wm) | (out & wm);
}

namespace {
// The lanes a fault hits among `active`: all (warp-level) or the (index mod count)-th active one.
uint32_t hit_lanes(const Fault& f, uint32_t active) {
  if (f.index >= kWarpLevel || !active) return active;
  uint64_t k = f.index % uint64_t(__builtin_popcount(active));
  uint32_t m = active;
  while (k--) m &= m - 1;
  return m & -m;
}
}  // namespace

void InstOutputInjector::retired(RetiredInst& r) {
  if (r.seq != seq_ || fired_) return;
  fired_ = true;
  if (!r.values && !r.pred) {
    note_ = fmt::format("instruction {} of the SM has no destination to corrupt", seq_);
    return;
  }
  applied_ = true;
  const uint32_t lanes = hit_lanes(f_, r.active);
  const unsigned width = dest_width(r);
  const std::string which = r.values ? fmt::format("r{}", r.in->ops[0].reg) : fmt::format("p{}", r.in->ops[0].reg);
  for (unsigned l = 0; l < 32; ++l) {
    if (!(lanes >> l & 1)) continue;
    uint64_t before = 0, after = 0;
    if (r.values) {
      before = r.values[l];
      after = r.values[l] = corrupt_value(f_, before, width);
    } else {
      before = *r.pred >> l & 1;
      after = corrupt_value(f_, before, 1) & 1;
      *r.pred = (*r.pred & ~(uint32_t{1} << l)) | uint32_t(after << l);
    }
    if (note_.empty())  // the first lane hit names the change (every lane gets the same one)
      note_ = fmt::format("warp {} lane {} {} (slot): {:#x} -> {:#x}{}", r.warp, l, which, before, after,
                          lanes & (lanes - 1) ? fmt::format(", {} lanes", __builtin_popcount(lanes)) : "");
  }
}

std::string arm_inst_output(Platform& p, const InstOutputTarget& t, InstOutputInjector& inj, uint64_t seq) {
  try {
    const uint64_t done = p.warp_insts(t.sm);
    if (done >= seq)
      return fmt::format("SM {} had executed {} warp instructions at the fork, instruction {} among them", t.sm, done,
                         seq);
    p.set_retire_observer(t.sm, &inj);
  } catch (const std::out_of_range&) {
    return fmt::format("the platform has no SM {}", t.sm);
  }
  return "";
}

void disarm_inst_output(Platform& p, const InstOutputTarget& t) { p.set_retire_observer(t.sm, nullptr); }

}  // namespace gpuvp::fi
