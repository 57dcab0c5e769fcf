#pragma once
// `gpuvp run`: a built-in workload on a configured platform, checked against its CPU reference, with a
// printed summary and the outputs of RunOutputs. `gpuvp sweep` runs its workload points through the same
// function, so that a point's statistics are those of the equivalent `gpuvp run`.
#include <cstdint>
#include <functional>
#include <string>

#include "platform/run_outputs.h"

namespace gpuvp {
class Config;

// Exit status 0 (correct) or 1 (wrong result); throws ConfigError naming an unknown workload or launch.
int cmd_run(const Config& c, const std::string& workload, const std::string& launch, uint64_t seed,
            const RunOutputs& outputs);

// Checks that `workload` and its launch configuration `launch` ("": the first) exist, without running;
// throws ConfigError with `what` before the message ("--workload", a sweep file's axis).
void check_workload(const std::string& workload, const std::string& launch, const std::string& what);

// Runs `body` and turns what it throws into the command line's message on standard error ("gpuvp: ...")
// and exit status: 2 bad input, 1 a device error or timeout, 3 an internal error.
int run_guarded(const std::function<int()>& body);

// A message with every word longer than 80 characters shortened around "..." (an identifier the user gave
// may be megabytes long).
std::string clip_words(const std::string& text);

}  // namespace gpuvp
