#include "models/memprot/data_objects.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace gpuvp {

namespace {
using P = ParamDef;
const bool declared = declare_params({
    "protect", "", "",
    {
        P::String("protect.duplicate", "", {},
                  "Data objects (allocation names, comma-separated) stored twice: an L1 miss reads both copies, "
                  "a mismatch ends the kernel with a detected error (docs/reliability.md)"),
        P::String("protect.triplicate", "", {},
                  "Data objects (allocation names, comma-separated) stored three times: an L1 miss reads the three "
                  "copies and uses their bitwise majority (docs/reliability.md)"),
    },
});

std::vector<std::string> split_names(const std::string& s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= s.size()) {
    size_t j = s.find(',', i);
    if (j == std::string::npos) j = s.size();
    std::string n = s.substr(i, j - i);
    n.erase(0, n.find_first_not_of(' '));
    n.erase(n.find_last_not_of(' ') + 1);
    if (!n.empty()) out.push_back(n);
    i = j + 1;
  }
  return out;
}
}  // namespace

ProtectionConfig ProtectionConfig::from(const Params& p) {
  (void)declared;
  ProtectionConfig c;
  c.duplicate = split_names(p.s("duplicate"));
  c.triplicate = split_names(p.s("triplicate"));
  std::set<std::string> seen;
  for (const auto* list : {&c.duplicate, &c.triplicate})
    for (const auto& n : *list)
      if (!seen.insert(n).second)
        throw std::invalid_argument(
            fmt::format("protect.duplicate / protect.triplicate: object '{}' named twice", n));
  return c;
}

unsigned ProtectionConfig::copies_of(const std::string& name) const {
  if (std::find(triplicate.begin(), triplicate.end(), name) != triplicate.end()) return 3;
  if (std::find(duplicate.begin(), duplicate.end(), name) != duplicate.end()) return 2;
  return 1;
}

void DataObjects::add(uint64_t base, uint64_t size) {
  DataObject o;
  o.base = base;
  o.size = size;
  o.name = fmt::format("alloc{}", objects_.size());
  o.copies = prot_.copies_of(o.name);
  live_[base] = objects_.size();
  objects_.push_back(std::move(o));
}

void DataObjects::remove(uint64_t base) {
  auto it = live_.find(base);
  if (it == live_.end()) return;
  objects_[it->second].live = false;
  live_.erase(it);
  refresh_protecting();
}

bool DataObjects::rename(uint64_t base, const std::string& name) {
  auto it = live_.find(base);
  if (it == live_.end()) return false;
  DataObject& o = objects_[it->second];
  o.name = name;
  o.copies = prot_.copies_of(name);
  return true;
}

void DataObjects::set_replicas(uint64_t base, std::vector<uint64_t> replicas) {
  auto it = live_.find(base);
  if (it == live_.end()) return;
  // The copies are allocations of their own: they stop being objects (no profile, no protection).
  for (uint64_t r : replicas) {
    auto rit = live_.find(r);
    if (rit == live_.end()) continue;
    objects_[rit->second].replica = true;
    live_.erase(rit);
  }
  objects_[it->second].replicas = std::move(replicas);
  refresh_protecting();
}

unsigned DataObjects::copies_wanted(uint64_t base) const {
  auto it = live_.find(base);
  return it == live_.end() ? 1 : objects_[it->second].copies;
}

size_t DataObjects::find(uint64_t addr) const {
  auto it = live_.upper_bound(addr);
  if (it == live_.begin()) return kNone;
  --it;
  const DataObject& o = objects_[it->second];
  return addr - o.base < o.size ? it->second : kNone;
}

std::vector<std::string> DataObjects::names() const {
  std::vector<std::string> out;
  for (const DataObject& o : objects_)
    if (!o.replica) out.push_back(o.name);
  return out;
}

void DataObjects::refresh_protecting() {
  protecting_ = false;
  for (const auto& [base, i] : live_) protecting_ |= !objects_[i].replicas.empty();
}

std::string unmatched_protection(const ProtectionConfig& pc, const std::vector<std::string>& objects) {
  std::string missing;
  for (const auto& [key, list] : {std::pair{"protect.duplicate", &pc.duplicate}, {"protect.triplicate", &pc.triplicate}})
    for (const auto& n : *list)
      if (std::find(objects.begin(), objects.end(), n) == objects.end())
        missing += fmt::format("{}{}: '{}'", missing.empty() ? "" : "; ", key, n);
  if (missing.empty()) return "";
  return fmt::format("{}: no data object of the program has that name (its objects: {})", missing,
                     objects.empty() ? "none" : fmt::format("{}", fmt::join(objects, ", ")));
}

void majority3(const uint8_t* a, const uint8_t* b, const uint8_t* c, uint8_t* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = uint8_t((a[i] & b[i]) | (a[i] & c[i]) | (b[i] & c[i]));
}

}  // namespace gpuvp
