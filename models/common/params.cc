#include "models/common/params.h"

#include <fmt/format.h>

#include <stdexcept>

namespace gpuvp {

namespace {
std::vector<ParamGroup>& groups() {
  static std::vector<ParamGroup> g;  // function-local: safe to fill during static initialisation
  return g;
}
ParamDef make(std::string key, ParamDef::Type type, nlohmann::json def, std::string doc) {
  ParamDef d;
  d.key = std::move(key);
  d.type = type;
  d.def = std::move(def);
  d.doc = std::move(doc);
  return d;
}
}  // namespace

ParamDef ParamDef::Int(std::string key, int64_t def, double lo, double hi, std::string doc, bool pow2) {
  ParamDef d = make(std::move(key), Type::Int, def, std::move(doc));
  d.min = lo;
  d.max = hi;
  d.power_of_two = pow2;
  return d;
}

ParamDef ParamDef::Float(std::string key, double def, double lo, double hi, std::string doc) {
  ParamDef d = make(std::move(key), Type::Float, def, std::move(doc));
  d.min = lo;
  d.max = hi;
  return d;
}

ParamDef ParamDef::Bool(std::string key, bool def, std::string doc) {
  return make(std::move(key), Type::Bool, def, std::move(doc));
}

ParamDef ParamDef::String(std::string key, std::string def, std::vector<std::string> choices, std::string doc) {
  ParamDef d = make(std::move(key), Type::String, std::move(def), std::move(doc));
  d.choices = std::move(choices);
  return d;
}

bool declare_params(ParamGroup group) {
  for (auto& d : group.defs)
    if (d.key.compare(0, group.cls.size() + 1, group.cls + ".") != 0)
      throw std::logic_error(fmt::format("parameter '{}' declared outside its group '{}'", d.key, group.cls));
  groups().push_back(std::move(group));
  return true;
}

const std::vector<ParamGroup>& param_groups() { return groups(); }

const nlohmann::json& Params::get(const std::string& key) const {
  if (!inst_.empty())
    if (const nlohmann::json* v = src_->find(inst_ + "." + key)) return *v;
  if (const nlohmann::json* v = src_->find(cls_ + "." + key)) return *v;
  throw std::out_of_range(fmt::format("parameter '{}.{}' is not declared", cls_, key));
}

}  // namespace gpuvp
