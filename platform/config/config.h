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

namespace gpuvp {

// Configuration errors are user errors: the CLI prints them and exits with status 2.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct KeyDef {
  enum class Type { Int, Float, Bool, String };
  std::string key;
  Type type = Type::Int;
  nlohmann::json def;
  double min = 0, max = 0;            // Int/Float range (inclusive)
  std::vector<std::string> choices;   // String: allowed values (empty = any)
  bool power_of_two = false;          // Int: must be a power of two
  std::string doc;
};

const std::vector<KeyDef>& config_schema();

class Config {
 public:
  // Schema defaults.
  Config();

  // Loads presets/<name>.json; throws ConfigError listing the known presets.
  static Config preset(const std::string& name);
  static std::vector<std::string> preset_names();
  static std::string preset_dir();

  // Merges a (possibly nested) JSON object; `origin` names the file for messages.
  void merge(const nlohmann::json& j, const std::string& origin);
  void merge_file(const std::string& path);
  // "key=value"; the value is parsed according to the key's type.
  void set(const std::string& assignment);
  void set(const std::string& key, const nlohmann::json& value, const std::string& origin);

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
  std::map<std::string, nlohmann::json> values_;
  std::string name_ = "custom";
};

}  // namespace gpuvp
