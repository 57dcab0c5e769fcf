#include "cli/run.h"

#include <fmt/format.h>

#include <cctype>
#include <filesystem>

#include "faultinj/campaign.h"
#include "faultinj/campaign_file.h"
#include "faultinj/job.h"
#include "faultinj/store.h"
#include "platform/config/config.h"
#include "platform/platform.h"
#include "platform/text.h"
#include "sw/ptx/parser.h"
#include "sw/workloads/workload.h"

namespace gpuvp {

namespace {

void print_summary(const Platform& p, const PlatformStats& st, const std::string& what, const wl::Result& r) {
  const rt::DeviceProps& d = p.props();
  print_out("{} on {} ({} SM{}, {} MHz)\n", what, d.name, d.sm_count, d.sm_count > 1 ? "s" : "", d.clock_mhz);
  print_out("  result:          {}{}\n", r.ok ? "correct" : "WRONG", r.ok ? "" : " - " + r.message);
  print_out("  simulated time:  {:.3f} us ({} GPU cycles in kernels, {} launch{})\n", st.sim_seconds * 1e6,
            st.kernel_cycles, st.launches.size(), st.launches.size() == 1 ? "" : "es");
  for (auto& l : st.launches)
    print_out("    {:<18} {:>10} cycles  blocks/core {}\n", l.kernel, l.cycles, l.blocks_per_core);
  print_out("  thread-insts:    {} ({:.2f} M per host second, host {:.3f} s)\n", st.thread_insts,
            st.host_seconds > 0 ? st.thread_insts / st.host_seconds / 1e6 : 0.0, st.host_seconds);
  for (size_t i = 0; i < st.sms.size(); ++i)
    print_out("  SM {:<2} residency {:5.1f} %  warp-insts {:>9}  blocks {:>5}  batches {:>4}\n", i,
              100 * st.sm_residency_fraction[i], st.sms[i].warp_insts, st.sms[i].blocks, st.sms[i].batches);
  for (auto& a : st.arbiters) {
    std::string g, s, w;
    for (size_t i = 0; i < a.grants.size(); ++i) {
      g += fmt::format("{}{}", i ? "/" : "", a.grants[i]);
      s += fmt::format("{}{}", i ? "/" : "", a.stall_cycles[i]);
      w += fmt::format("{}{}", i ? "/" : "", a.wait_cycles[i]);
    }
    print_out("  {:<12} grants {:<24} stall cycles {:<24} waited {}\n", a.name, g, s, w);
  }
}

struct Resolved {
  const wl::Workload* w = nullptr;
  wl::LaunchConfig lc;
};

// `what` and `what_launch` start the messages of an unknown workload and an unknown launch configuration.
Resolved resolve(const std::string& workload, const std::string& launch, const std::string& what,
                 const std::string& what_launch) {
  Resolved r;
  try {
    r.w = &wl::find_or_throw(workload);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(what + " " + e.what());
  }
  try {
    r.lc = wl::launch_or_default(*r.w, launch);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(what_launch + " " + e.what());
  }
  return r;
}

int fail(int status, const char* prefix, const std::exception& e) {
  print_err("gpuvp: {}{}\n", prefix, clip_words(e.what()));
  return status;
}

}  // namespace

void check_workload(const std::string& workload, const std::string& launch, const std::string& what) {
  resolve(workload, launch, what, what + " " + workload + ": launch:");
}

int cmd_run(const Config& c, const std::string& workload, const std::string& launch, uint64_t seed,
            const RunOutputs& outputs) {
  const Resolved r = resolve(workload, launch, "--workload", "--launch:");
  outputs.check();
  PlatformHooks hooks;
  outputs.apply(hooks);
  Platform p(c, hooks);
  outputs.attach(p);
  wl::Result result;
  p.run([&](rt::Runtime& rt) { result = r.w->run(rt, r.lc, seed); });
  print_summary(p, p.stats(), fmt::format("{} ({})", r.w->name(), r.lc.name), result);
  outputs.write(p, {{"command", "run"}, {"workload", r.w->name()}, {"launch_config", r.lc.name}, {"seed", seed},
                    {"correct", result.ok}, {"output_digest", fmt::format("{:016x}", fi::hash_bytes(result.output))}});
  return result.ok ? 0 : 1;
}

// Messages echo what the user gave (a key, an identifier, a value): a 5 MB identifier must not make
// 10 MB of stderr. Every whitespace-separated word longer than 80 characters keeps its first 40 and
// last 37 characters around "..." (the end of a long path keeps the file name and line).
std::string clip_words(const std::string& text) {
  constexpr size_t kMax = 80, kHead = 40, kTail = 37;
  const std::string msg = valid_utf8(text);  // cuts below land on character boundaries
  std::string out;
  size_t i = 0;
  while (i < msg.size()) {
    size_t j = i;
    while (j < msg.size() && !std::isspace(static_cast<unsigned char>(msg[j]))) ++j;
    if (j - i > kMax) {
      const size_t head_end = utf8_boundary(msg, i + kHead), tail = utf8_boundary(msg, j - kTail);
      out += msg.substr(i, head_end - i) + "..." + msg.substr(tail, j - tail);
    } else {
      out.append(msg, i, j - i);
    }
    while (j < msg.size() && std::isspace(static_cast<unsigned char>(msg[j]))) out += msg[j++];
    i = j;
  }
  return out;
}

int run_guarded(const std::function<int()>& body) {
  try {
    return body();
  } catch (const fi::CampaignError& e) {
    return fail(2, "", e);
  } catch (const fi::StoreError& e) {
    return fail(2, "", e);
  } catch (const ConfigError& e) {
    return fail(2, "", e);
  } catch (const ptx::ParseError& e) {
    return fail(2, "", e);
  } catch (const DeviceError& e) {
    return fail(1, "device error: ", e);
  } catch (const TimeoutError& e) {
    return fail(1, "", e);
  } catch (const rt::RuntimeError& e) {
    return fail(2, "runtime error: ", e);
  } catch (const std::filesystem::filesystem_error& e) {  // a path the user gave that cannot be used
    return fail(2, "", e);
  } catch (const std::exception& e) {
    return fail(3, "error: ", e);
  }
}

}  // namespace gpuvp
