#pragma once
// The instant at which a stop (an injected fault) is ordered against a transaction, for targets that
// record their accesses (docs/campaigns.md, "Lifetimes, ACE and pruning"). A requester that runs ahead
// of simulated time (an SM) attaches it while the registry records: the target's accesses are ordered
// at the later of this instant and simulated time when it handles the transaction, not at simulated
// time alone (a debug read, or a transaction-level arbiter, reaches the target before simulated time
// has caught up with the requester). A component that makes its own transaction for the request (the
// L2's refills and write-backs) forwards it (Forward); one that passes the payload on keeps it. Never
// attached when not recording, so it costs nothing then.
#include <cstdint>

#include <tlm>

namespace gpuvp {

struct RequesterInstant : tlm::tlm_extension<RequesterInstant> {
  uint64_t ps = 0;

  tlm_extension_base* clone() const override { return new RequesterInstant(*this); }
  void copy_from(const tlm_extension_base& e) override { *this = static_cast<const RequesterInstant&>(e); }

  // The instant p carries; 0 when it carries none (a requester that keeps simulated time).
  static uint64_t of(const tlm::tlm_generic_payload& p) {
    RequesterInstant* r = nullptr;
    p.get_extension(r);
    return r ? r->ps : 0;
  }

  // Puts `ps` (when not 0) on `p` as `ext` for the scope, removed after (ext outlives p's use).
  class Forward {
   public:
    Forward(tlm::tlm_generic_payload& p, RequesterInstant& ext, uint64_t ps) : p_(ps ? &p : nullptr), ext_(ext) {
      if (!p_) return;
      ext_.ps = ps;
      p_->set_extension(&ext_);
    }
    ~Forward() {
      if (p_) p_->clear_extension(&ext_);
    }
    Forward(const Forward&) = delete;
    Forward& operator=(const Forward&) = delete;

   private:
    tlm::tlm_generic_payload* p_;
    RequesterInstant& ext_;
  };
};

}  // namespace gpuvp
