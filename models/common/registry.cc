#include "models/common/registry.h"

#include "models/common/digest.h"

#include <fmt/format.h>

#include <iterator>
#include <stdexcept>

namespace gpuvp {

namespace {
// '*' matches any run of characters, '?' one character. Two pointers with one backtrack point: the
// last '*' seen; linear in practice, never exponential ("************z").
bool glob_match(const char* p, const char* s) {
  const char* star = nullptr;
  const char* retry = nullptr;
  while (*s) {
    if (*p == '*') {
      star = p++;
      retry = s;
    } else if (*p == '?' || *p == *s) {
      ++p, ++s;
    } else if (star) {
      p = star + 1;
      s = ++retry;
    } else {
      return false;
    }
  }
  while (*p == '*') ++p;
  return *p == '\0';
}

}  // namespace

uint64_t word_digest(uint64_t index, uint64_t value) { return word_digest_inline(index, value); }

uint64_t Registry::state_hash() const {
  uint64_t h = 0;
  for (auto& [name, t] : targets_) {
    uint64_t th = std::hash<std::string>{}(name);
    if (t.digest) {
      th = digest_mix(th ^ t.digest());
    } else {
      for (uint64_t i = 0; i < t.count; ++i) th = digest_mix(th ^ mask_bits(t.get(i), t.width));
    }
    h = digest_mix(h ^ th);
  }
  return h;
}

void Registry::add_timing(const std::string& name, TimingDigest d) {
  if (!timing_.emplace(name, std::move(d)).second)
    throw std::invalid_argument(fmt::format("registry: timing of '{}' registered twice", name));
}

uint64_t Registry::timing_digest(uint64_t now_ps) const {
  uint64_t h = 0;
  for (auto& [name, d] : timing_) h = digest_fold(h ^ std::hash<std::string>{}(name), d(now_ps));
  return h;
}

void Registry::add(Target t) {
  if (t.width == 0 || t.width > 64)
    throw std::invalid_argument(fmt::format("registry: target '{}' has width {} (1..64 allowed)", t.name, t.width));
  if (targets_.count(t.name)) throw std::invalid_argument(fmt::format("registry: target '{}' registered twice", t.name));
  if (t.count > (uint64_t(1) << 32))  // AccessEvent::index
    throw std::invalid_argument(fmt::format("registry: target '{}' has {} words (at most 2^32)", t.name, t.count));
  t.serial = next_serial_++;
  targets_.emplace(t.name, std::move(t));
}

void Registry::record_accesses(AccessLog* log) {
  log_ = log;
  events_ = nullptr;
  note_read_always();
}

void Registry::record_accesses(std::vector<AccessEvent>* log) {
  log_ = nullptr;
  events_ = log;
  note_read_always();
}

void Registry::note_read_always() {
  for (const auto& [name, t] : targets_)
    for (uint64_t i = 0; t.read_always && i < t.count; ++i) note(t, i, Access::ReadSpan, 0, kToTheEnd);
}

void Registry::remove_prefix(const std::string& prefix) {
  for (auto it = targets_.begin(); it != targets_.end();) {
    if (it->first.compare(0, prefix.size(), prefix) == 0)
      it = targets_.erase(it);
    else
      ++it;
  }
  for (auto it = timing_.begin(); it != timing_.end();)
    it = it->first.compare(0, prefix.size(), prefix) == 0 ? timing_.erase(it) : std::next(it);
}

bool Registry::contains(const std::string& name) const { return targets_.count(name) != 0; }

const Target& Registry::at(const std::string& name) const {
  auto it = targets_.find(name);
  if (it == targets_.end()) throw std::out_of_range(fmt::format("registry: no target named '{}'", name));
  return it->second;
}

Target& Registry::at_mut(const std::string& name) {
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
