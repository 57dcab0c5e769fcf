#pragma once
// Platform configuration: hierarchical keys ("sm.count") with a schema that gives each key its
// type, range and meaning. A configuration is the schema defaults, then a preset file, then
// user files, then --set overrides; every step is validated and errors name the key.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/common/log.h"
#include "models/common/params.h"

namespace gpuvp {

// Configuration errors are user errors: the CLI prints them and exits with status 2.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using KeyDef = ParamDef;

// The parameter groups of every model the platform builds (defined in platform.cc, next to the
// wiring, so that whatever links the configuration links the models' declarations too).
const std::vector<ParamGroup>& model_param_groups();

// Every key: the platform's own and those each model declares in its folder, sorted by key.
const std::vector<KeyDef>& config_schema();

// log.modules parsed: (module path prefix, level) pairs; throws ConfigError naming the item.
std::vector<std::pair<std::string, log::Level>> parse_log_modules(const std::string& spec);

// Values are looked up by full key; a model reads them through a Params view (models/common/params.h),
// which prefers a per-instance key (gpu.sm1.warp_policy) over the class key (sm.warp_policy).
class Config : public ParamSource {
 public:
  // Schema defaults.
  Config();

  // Loads presets/<name>.json; throws ConfigError listing the known presets.
  static Config preset(const std::string& name);
  static std::vector<std::string> preset_names();
  static std::string preset_dir();
  // The preset folder of a build or installed tree, found from the folder of a file in it (the gpuvp
  // executable, libcudart.so.13): <dir>/presets (next to the library in a build tree), then
  // <dir>/../share/gpuvp/presets and <dir>/../../share/gpuvp/presets (installed: bin/, lib/gpuvp/).
  // Empty when there is none. Setting GPUVP_PRESETS to it makes preset_dir() use it.
  static std::string preset_dir_near(const std::string& dir);

  // Merges a (possibly nested) JSON object; `origin` names the file for messages.
  void merge(const nlohmann::json& j, const std::string& origin);
  void merge_file(const std::string& path);
  // "key=value"; the value is parsed according to the key's type. A per-instance key
  // (gpu.sm1.warp_policy) takes the type and range of the class key it overrides.
  void set(const std::string& assignment);
  void set(const std::string& key, const nlohmann::json& value, const std::string& origin);

  const nlohmann::json* find(const std::string& key) const override;
  // A model's view of its parameters: class "sm", instance "gpu.sm1".
  Params params(const std::string& cls, const std::string& instance) const { return Params(*this, cls, instance); }

  int64_t i(const std::string& key) const;
  double f(const std::string& key) const;
  bool b(const std::string& key) const;
  const std::string& s(const std::string& key) const;

  // Cross-key checks (e.g. threads per block within threads per SM); throws ConfigError.
  void validate() const;

  // Nested JSON of every key (the effective configuration).
  nlohmann::json to_json() const;
  std::string name() const { return name_; }

 private:
  const nlohmann::json& get(const std::string& key) const;
  void validate_concurrent() const;
  void validate_sm_count() const;
  void validate_caches() const;
  std::map<std::string, nlohmann::json> values_;
  std::string name_ = "custom";
};

}  // namespace gpuvp
