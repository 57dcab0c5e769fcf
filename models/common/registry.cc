#include "models/common/registry.h"

#include <fmt/format.h>

#include <stdexcept>

namespace gpuvp {

namespace {
bool glob_match(const char* p, const char* s) {
  // '*' matches any run of characters, '?' one character; enough for target selection.
  if (*p == '\0') return *s == '\0';
  if (*p == '*') return glob_match(p + 1, s) || (*s && glob_match(p, s + 1));
  if (*s && (*p == '?' || *p == *s)) return glob_match(p + 1, s + 1);
  return false;
}
}  // namespace

void Registry::add(Target t) {
  if (t.width == 0 || t.width > 64)
    throw std::invalid_argument(fmt::format("registry: target '{}' has width {} (1..64 allowed)", t.name, t.width));
  if (targets_.count(t.name)) throw std::invalid_argument(fmt::format("registry: target '{}' registered twice", t.name));
  targets_.emplace(t.name, std::move(t));
}

void Registry::remove_prefix(const std::string& prefix) {
  for (auto it = targets_.begin(); it != targets_.end();) {
    if (it->first.compare(0, prefix.size(), prefix) == 0)
      it = targets_.erase(it);
    else
      ++it;
  }
}

bool Registry::contains(const std::string& name) const { return targets_.count(name) != 0; }

const Target& Registry::at(const std::string& name) const {
  auto it = targets_.find(name);
  if (it == targets_.end()) throw std::out_of_range(fmt::format("registry: no target named '{}'", name));
  return it->second;
}

std::vector<const Target*> Registry::all() const {
  std::vector<const Target*> v;
  v.reserve(targets_.size());
  for (auto& [n, t] : targets_) v.push_back(&t);
  return v;
}

std::vector<const Target*> Registry::matching(const std::string& glob) const {
  std::vector<const Target*> v;
  for (auto& [n, t] : targets_)
    if (glob_match(glob.c_str(), n.c_str())) v.push_back(&t);
  return v;
}

uint64_t Registry::read(const std::string& name, uint64_t index) const {
  const Target& t = at(name);
  if (index >= t.count) throw std::out_of_range(fmt::format("registry: index {} outside '{}' ({} words)", index, name, t.count));
  return mask_bits(t.get(index), t.width);
}

void Registry::write(const std::string& name, uint64_t value, uint64_t index) {
  const Target& t = at(name);
  if (index >= t.count) throw std::out_of_range(fmt::format("registry: index {} outside '{}' ({} words)", index, name, t.count));
  t.set(index, mask_bits(value, t.width));
  if (t.on_write) t.on_write();
}

void Registry::flip(const std::string& name, unsigned bit, uint64_t index) {
  const Target& t = at(name);
  if (bit >= t.width) throw std::out_of_range(fmt::format("registry: bit {} outside '{}' ({} bits)", bit, name, t.width));
  write(name, read(name, index) ^ (uint64_t{1} << bit), index);
}

uint64_t Registry::total_bits() const {
  uint64_t n = 0;
  for (auto& [name, t] : targets_) n += uint64_t(t.width) * t.count;
  return n;
}

}  // namespace gpuvp
