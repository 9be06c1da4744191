// The main() of quench's helper programs (benchmarks, reproduction tools): `--help` prints the
// usage, and every exception becomes one message and an exit code of the quench command line
// (1 error; 2 invalid pipeline or usage).
#pragma once

#include <exception>
#include <iostream>
#include <string_view>

#include "quench/errors.h"
#include "quench/printable.h"

namespace quench {

/// Runs `body()` (returning the exit code) unless an argument is `--help` or `-h`, in which
/// case `usage` goes to stdout and the result is 0. A ConfigError prints its diagnostics and
/// returns 2; any other exception prints "<program>: error: <what>" and returns 1.
template <class Body>
int tool_main(int argc, char** argv, std::string_view usage, Body&& body) {
  const std::string_view program = argc > 0 ? argv[0] : "quench-tool";
  for (int a = 1; a < argc; ++a)
    if (std::string_view(argv[a]) == "--help" || std::string_view(argv[a]) == "-h") {
      std::cout << "usage: " << program << " " << usage << "\n";
      return 0;
    }
  try {
    return body();
  } catch (const ConfigError& e) {
    for (const auto& d : e.diagnostics()) std::cerr << d.str() << "\n";
    if (e.diagnostics().empty()) std::cerr << program << ": error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << program << ": error: " << printable(e.what(), 1000) << "\n";
    return 1;
  } catch (...) {
    std::cerr << program << ": error: unknown exception\n";
    return 1;
  }
}

}  // namespace quench
