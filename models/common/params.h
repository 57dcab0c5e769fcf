#pragma once
// Parameters a model owns. Each model folder declares its keys once (a ParamGroup: the class prefix
// such as "sm", the instance path such as "gpu.sm#", and every key's type, range, default and
// meaning); the platform's configuration gathers every declared group into its schema, so the
// model's folder is the one place a parameter is written down. A model reads its values through a
// Params view of its instance: <instance>.<key> when set (a per-instance override,
// `--set gpu.sm1.warp_policy=gto`), else <class>.<key> (the value every instance shares).
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace gpuvp {

struct ParamDef {
  enum class Type { Int, Float, Bool, String };
  std::string key;  // full key: "sm.warp_policy"
  Type type = Type::Int;
  nlohmann::json def;
  double min = 0, max = 0;            // Int/Float range (inclusive)
  std::vector<std::string> choices;   // String: allowed values (empty = any)
  bool power_of_two = false;          // Int: must be a power of two
  bool shared = false;                // one value for every instance: no per-instance override
  std::string doc;

  static ParamDef Int(std::string key, int64_t def, double lo, double hi, std::string doc, bool pow2 = false);
  static ParamDef Float(std::string key, double def, double lo, double hi, std::string doc);
  static ParamDef Bool(std::string key, bool def, std::string doc);
  static ParamDef String(std::string key, std::string def, std::vector<std::string> choices, std::string doc);
  ParamDef& one_for_all() {
    shared = true;
    return *this;
  }
};

struct ParamGroup {
  std::string cls;        // "sm": every key of the group starts with "sm."
  std::string instance;   // instance path: "gpu.sched", or "gpu.sm#" (# = 0 .. count-1); empty: none
  std::string count_key;  // with '#': the key that says how many instances exist ("sm.count")
  std::vector<ParamDef> defs;
};

// Declares a group at static initialisation, in the model's own parameter file:
//   static const bool declared = declare_params({...});
// That file also defines how the model reads its parameters, which the platform calls, so the
// linker always keeps the declaration.
bool declare_params(ParamGroup group);
// Every declared group (in no particular order).
const std::vector<ParamGroup>& param_groups();

class ParamSource {
 public:
  virtual ~ParamSource() = default;
  // The value of a full key (class or instance key), or nullptr when it is not set.
  virtual const nlohmann::json* find(const std::string& key) const = 0;
};

class Params {
 public:
  Params(const ParamSource& src, std::string cls, std::string instance)
      : src_(&src), cls_(std::move(cls)), inst_(std::move(instance)) {}

  int64_t i(const std::string& key) const { return get(key).get<int64_t>(); }
  double f(const std::string& key) const { return get(key).get<double>(); }
  bool b(const std::string& key) const { return get(key).get<bool>(); }
  const std::string& s(const std::string& key) const { return get(key).get_ref<const std::string&>(); }
  // The view of a nested group: sub("latency").i("alu") reads sm.latency.alu.
  Params sub(const std::string& key) const { return Params(*src_, cls_ + "." + key, inst_ + "." + key); }
  const std::string& instance() const { return inst_; }

 private:
  const nlohmann::json& get(const std::string& key) const;  // throws std::out_of_range naming the key

  const ParamSource* src_;
  std::string cls_, inst_;
};

}  // namespace gpuvp
