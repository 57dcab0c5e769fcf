#pragma once
// The application's data objects (its global-memory allocations, named by the host program) as the
// load-store path sees them: which object an address belongs to, which objects are protected by
// replication (docs/reliability.md, "Data-centric protection") and where their copies are, and the
// memory profiler's hooks. One table per platform, shared by every SM.
//
// Protection (the published data-centric technique): a protected object is stored 2 (duplication:
// detection) or 3 (triplication: correction) times; the start addresses of the copies form the
// start-address table. A read that leaves the SM for L2 / DRAM (an L1 miss, or a load the L1 does not
// cache) is issued once per copy at the same offset; duplication uses the first copy to arrive and
// compares the two when the second arrives (a mismatch ends the kernel with a `detected` device
// error), triplication waits for all three and uses their bitwise majority. Writes and atomics go to
// every copy; an atomic's old values are compared or voted as a read's data is.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/common/params.h"

namespace gpuvp {

// What the memory profiler is told (platform/mem_profile.h implements it).
class MemObserver {
 public:
  virtual ~MemObserver() = default;
  // One transaction of a warp's global access (a coalesced segment piece, or one lane's access),
  // `object` the index of the data object holding `addr` (DataObjects::objects()).
  virtual void access(size_t object, uint64_t addr, unsigned len, bool write, uint64_t warp) = 0;
  // A read leaving the SM for the next level (an L1 miss, or a load the L1 does not cache).
  virtual void l1_miss(size_t object, uint64_t addr, unsigned len) = 0;
};

struct DataObject {
  uint64_t base = 0, size = 0;
  std::string name;                 // the host program's name, else "allocN" (N: the allocation's rank)
  bool live = true;                 // false once freed (kept: the profile still names it)
  unsigned copies = 1;              // 1 unprotected, 2 duplicated, 3 triplicated
  std::vector<uint64_t> replicas;   // start addresses of copies 2..copies (empty until the runtime made them)
  bool replica = false;             // this allocation is a copy of another object (never profiled)
};

struct ProtectionConfig {
  std::vector<std::string> duplicate, triplicate;  // object names (protect.duplicate, protect.triplicate)
  // Reads protect.* (comma-separated names); throws std::invalid_argument naming a name given twice.
  static ProtectionConfig from(const Params& p);
  // 1, 2 or 3 for an object named `name`.
  unsigned copies_of(const std::string& name) const;
  bool any() const { return !duplicate.empty() || !triplicate.empty(); }
};

class DataObjects {
 public:
  explicit DataObjects(ProtectionConfig pc = {}) : prot_(std::move(pc)) {}

  void add(uint64_t base, uint64_t size);
  void remove(uint64_t base);
  // Names the live object starting at `base` (its protection follows the new name); false: none.
  bool rename(uint64_t base, const std::string& name);
  // The copies of the live object at `base` (replica allocations made by the runtime).
  void set_replicas(uint64_t base, std::vector<uint64_t> replicas);
  // Copies wanted for the live object at `base` (1 when there is none or it is unprotected).
  unsigned copies_wanted(uint64_t base) const;

  // The index of the live object holding `addr` (a replica's address belongs to no object), or kNone.
  static constexpr size_t kNone = ~size_t{0};
  size_t find(uint64_t addr) const;
  const std::vector<DataObject>& objects() const { return objects_; }
  // True when some live object has replicas: the load-store path looks up nothing otherwise.
  bool protecting() const { return protecting_; }
  // The names of every allocation the program made (the runtime's copies aside), in allocation order.
  std::vector<std::string> names() const;
  const ProtectionConfig& protection() const { return prot_; }

  MemObserver* observer = nullptr;

 private:
  ProtectionConfig prot_;
  std::vector<DataObject> objects_;       // every allocation ever made, in allocation order
  std::map<uint64_t, size_t> live_;       // base -> index of the live object
  bool protecting_ = false;
  void refresh_protecting();
};

// Empty when every name of protect.* is one of `objects` (the names of the program's data objects);
// else the error naming each other name with its key, and the objects there are: a misspelt name
// would otherwise leave its object silently unprotected.
std::string unmatched_protection(const ProtectionConfig& pc, const std::vector<std::string>& objects);

// The bitwise majority of three equal-sized byte strings, into out (may alias a).
void majority3(const uint8_t* a, const uint8_t* b, const uint8_t* c, uint8_t* out, size_t n);

}  // namespace gpuvp
