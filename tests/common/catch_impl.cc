// Catch2's implementation, compiled once for both test mains (sc_catch_main.cc, catch_main.cc): it is
// the heaviest source of the test suite, and each main compiling its own copy cost CI two of them per build.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include "common/catch_run.h"

int gpuvp_catch_run(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }
