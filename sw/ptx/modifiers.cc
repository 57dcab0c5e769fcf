// Modifier tables (modifier text -> isa enums) and how an instruction's modifiers are consumed.
#include "sw/ptx/parser_internal.h"

namespace gpuvp::ptx::detail {

const std::map<std::string, DType> kTypes = {
    {"pred", DType::Pred}, {"b8", DType::B8},   {"b16", DType::B16}, {"b32", DType::B32}, {"b64", DType::B64},
    {"u8", DType::U8},     {"u16", DType::U16}, {"u32", DType::U32}, {"u64", DType::U64}, {"s8", DType::S8},
    {"s16", DType::S16},   {"s32", DType::S32}, {"s64", DType::S64}, {"f16", DType::F16}, {"f32", DType::F32},
    {"f64", DType::F64}};

const std::map<std::string, isa::SReg> kSRegs = {
    {"%tid.x", isa::SReg::TidX},       {"%tid.y", isa::SReg::TidY},       {"%tid.z", isa::SReg::TidZ},
    {"%ntid.x", isa::SReg::NtidX},     {"%ntid.y", isa::SReg::NtidY},     {"%ntid.z", isa::SReg::NtidZ},
    {"%ctaid.x", isa::SReg::CtaidX},   {"%ctaid.y", isa::SReg::CtaidY},   {"%ctaid.z", isa::SReg::CtaidZ},
    {"%nctaid.x", isa::SReg::NctaidX}, {"%nctaid.y", isa::SReg::NctaidY}, {"%nctaid.z", isa::SReg::NctaidZ},
    {"%laneid", isa::SReg::LaneId},    {"%warpid", isa::SReg::WarpId},    {"%nwarpid", isa::SReg::NWarpId},
    {"%smid", isa::SReg::SmId},        {"%nsmid", isa::SReg::NSmId},      {"%clock", isa::SReg::Clock},
    {"%clock_hi", isa::SReg::ClockHi}, {"%clock64", isa::SReg::Clock64},  {"%globaltimer", isa::SReg::GlobalTimer},
    {"%globaltimer_lo", isa::SReg::GlobalTimerLo}, {"%globaltimer_hi", isa::SReg::GlobalTimerHi},
    {"%lanemask_eq", isa::SReg::LanemaskEq}, {"%lanemask_lt", isa::SReg::LanemaskLt},
    {"%lanemask_le", isa::SReg::LanemaskLe}, {"%lanemask_gt", isa::SReg::LanemaskGt},
    {"%lanemask_ge", isa::SReg::LanemaskGe}, {"%dynamic_smem_size", isa::SReg::DynamicSmemSize},
    {"%total_smem_size", isa::SReg::TotalSmemSize}, {"%gridid", isa::SReg::GridId}};

const std::map<std::string, isa::Cmp> kCmps = {
    {"eq", isa::Cmp::Eq},   {"ne", isa::Cmp::Ne},   {"lt", isa::Cmp::Lt},   {"le", isa::Cmp::Le},
    {"gt", isa::Cmp::Gt},   {"ge", isa::Cmp::Ge},   {"lo", isa::Cmp::Lo},   {"ls", isa::Cmp::Ls},
    {"hi", isa::Cmp::Hi},   {"hs", isa::Cmp::Hs},   {"equ", isa::Cmp::Equ}, {"neu", isa::Cmp::Neu},
    {"ltu", isa::Cmp::Ltu}, {"leu", isa::Cmp::Leu}, {"gtu", isa::Cmp::Gtu}, {"geu", isa::Cmp::Geu},
    {"num", isa::Cmp::Num}, {"nan", isa::Cmp::Nan}};
const std::map<std::string, isa::Round> kRounds = {
    {"rn", isa::Round::Rn},   {"rz", isa::Round::Rz},   {"rm", isa::Round::Rm},   {"rp", isa::Round::Rp},
    {"rni", isa::Round::Rni}, {"rzi", isa::Round::Rzi}, {"rmi", isa::Round::Rmi}, {"rpi", isa::Round::Rpi}};
const std::map<std::string, Space> kSpaces = {{"global", Space::Global}, {"shared", Space::Shared},
                                              {"shared::cta", Space::Shared}, {"const", Space::Const},
                                              {"param", Space::Param}, {"local", Space::Local}};
const std::map<std::string, isa::MemLevel> kScopes = {
    {"cta", isa::MemLevel::Cta}, {"gpu", isa::MemLevel::Gl}, {"sys", isa::MemLevel::Sys}};

DType wide_of(DType t) {
  switch (t) {
    case DType::U16: return DType::U32;
    case DType::S16: return DType::S32;
    case DType::U32: return DType::U64;
    case DType::S32: return DType::S64;
    case DType::B16: return DType::B32;
    case DType::B32: return DType::B64;
    default: return DType::None;
  }
}
char type_class(DType t) {
  if (t == DType::Pred) return 'p';
  if (t == DType::F32 || t == DType::F64) return 'f';
  if (t == DType::F16) return 'h';
  if (isa::is_signed(t)) return 's';
  if (t == DType::U8 || t == DType::U16 || t == DType::U32 || t == DType::U64) return 'u';
  return 'b';
}

std::string type_name(DType t) {
  for (auto& [k, v] : kTypes)
    if (v == t) return k;
  return "?";
}

bool Ictx::take(const char* m) {
  for (size_t j = 0; j < mods.size(); ++j)
    if (!used[j] && mods[j] == m) return used[j] = true;
  return false;
}

DType Ictx::type(bool required) {
  DType t = take_of(kTypes, DType::None);
  if (t == DType::None && required) die(op, "missing type modifier");
  return t;
}

void Ictx::done() const {
  for (size_t j = 0; j < mods.size(); ++j)
    if (!used[j]) die(op, fmt::format("unknown modifier '.{}'", mods[j]));
}

void Ictx::scope_sem() {
  bool any = false;
  for (const char* s : {"relaxed", "acquire", "release", "acq_rel", "weak"})
    if (take(s)) any = true;
  auto lv = take_of(kScopes, isa::MemLevel::None);
  if (lv != isa::MemLevel::None) in.inst.mod.level = lv;
  if (any && !used.empty()) in.inst.mod.flags |= isa::kRelaxed;
  if (lv != isa::MemLevel::None && !any) die(op, "scope qualifier without a memory-ordering qualifier");
}

}  // namespace gpuvp::ptx::detail
