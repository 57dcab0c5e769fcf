#pragma once
// The instant at which a stop (an injected fault) is ordered against a transaction, for targets that
// record their accesses (docs/campaigns.md, "Lifetimes, ACE and pruning"). A requester that runs ahead
// of simulated time (an SM) attaches it while the registry records: the target's accesses are ordered
// at the later of this instant and simulated time when it handles the transaction, not at simulated
// time alone (a debug read, or a transaction-level arbiter, reaches the target before simulated time
// has caught up with the requester).
#include <cstdint>

#include <tlm>

namespace gpuvp {

struct RequesterInstant : tlm::tlm_extension<RequesterInstant> {
  uint64_t ps = 0;

  tlm_extension_base* clone() const override { return new RequesterInstant(*this); }
  void copy_from(const tlm_extension_base& e) override { *this = static_cast<const RequesterInstant&>(e); }
};

}  // namespace gpuvp
