// Compiled with the Verilated code (no project warnings): uses Verilator's symbol table.
#include "rtl/verilated_model.h"

#include <stdexcept>

#include "verilated.h"
#include "verilated_syms.h"

namespace gpuvp::rtl {

namespace {
unsigned bytes_of(const VerilatedVar& v, const std::string& name) {
  switch (v.vltype()) {
    case VLVT_UINT8: return 1;
    case VLVT_UINT16: return 2;
    case VLVT_UINT32: return 4;
    case VLVT_UINT64: return 8;
    default: throw std::runtime_error("rtl: signal " + name + " is wider than 64 bits");
  }
}
unsigned width_of(const VerilatedVar& v) {
  if (v.dims() == v.udims()) return 1;  // no packed range
  const VerilatedRange& r = v.packed();
  return static_cast<unsigned>(r.elements());
}
}  // namespace

Var VModel::lookup(const void* scope, const std::string& name, unsigned index) const {
  const auto* s = static_cast<const VerilatedScope*>(scope);
  const VerilatedVar* v = s->varFind(name.c_str());
  if (!v) throw std::runtime_error("rtl: " + std::string(s->name()) + " has no signal " + name);
  unsigned b = bytes_of(*v, name);
  void* p = v->datap();
  if (v->udims() > 0) {
    if (v->udims() > 1) throw std::runtime_error("rtl: " + name + ": multi-dimensional arrays are not supported");
    if (index >= static_cast<unsigned>(v->unpacked().elements()))
      throw std::out_of_range("rtl: " + name + " index " + std::to_string(index));
    p = static_cast<uint8_t*>(p) + static_cast<size_t>(index) * v->entSize();
  } else if (index != 0) {
    throw std::out_of_range("rtl: " + name + " is not an array");
  }
  return Var(p, b, width_of(*v));
}

Var VModel::port(const std::string& name, unsigned index) const { return lookup(top_, name, index); }
Var VModel::signal(const std::string& name, unsigned index) const { return lookup(mod_, name, index); }

unsigned VModel::elements(const std::string& name) const {
  const VerilatedVar* v = static_cast<const VerilatedScope*>(mod_)->varFind(name.c_str());
  if (!v) throw std::runtime_error("rtl: no signal " + name);
  return v->udims() ? static_cast<unsigned>(v->unpacked().elements()) : 1u;
}

void VModel::init(const std::string& hier, const std::string& module, const char* const* flops, size_t nflops) {
  hier_ = hier;
  module_ = module;
  VerilatedContext* ctx = Verilated::defaultContextp();
  top_ = ctx->scopeFind((hier + ".TOP").c_str());
  mod_ = ctx->scopeFind((hier + "." + module).c_str());
  if (!top_ || !mod_) throw std::runtime_error("rtl: scopes of " + hier + " not found (is --public-flat-rw set?)");
  clk_ = port("clk");
  reset_ = port("reset");
  for (size_t i = 0; i < nflops; ++i) {
    std::string nm = flops[i];
    unsigned n = elements(nm);
    const VerilatedVar* v = static_cast<const VerilatedScope*>(mod_)->varFind(nm.c_str());
    if (v->udims() == 0) {
      flops_.push_back({nm, signal(nm)});
    } else {
      for (unsigned k = 0; k < n; ++k) flops_.push_back({nm + "[" + std::to_string(k) + "]", signal(nm, k)});
    }
  }
  for (const auto& [name, v] : *static_cast<const VerilatedScope*>(top_)->varsp()) {
    if (std::string(name) == "clk") continue;
    const unsigned n = v.udims() ? static_cast<unsigned>(v.unpacked().elements()) : 1u;
    for (unsigned k = 0; k < n; ++k) ports_.push_back(port(name, k));
  }
}

void VModel::power_on_reset() {
  clk_.set(0);
  reset_.set(0);
  eval();
  reset_.set(1);
  eval();
  reset_.set(0);
  eval();
}

void VModel::edge() {
  clk_.set(1);
  eval();
  clk_.set(0);
  eval();
}

bool flops_changed(const VModel& m, std::vector<uint64_t>& snap) {
  const auto& fl = m.flops();
  bool changed = false;
  for (size_t i = 0; i < fl.size(); ++i) {
    uint64_t v = fl[i].var.get();
    if (v != snap[i]) {
      changed = true;
      snap[i] = v;
    }
  }
  return changed;
}

}  // namespace gpuvp::rtl
