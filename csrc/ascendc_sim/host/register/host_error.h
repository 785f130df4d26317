// How the host shims report an API misuse or an API the simulator does not implement: an exception the
// op-project driver (ascendgen_op_host.cpp) catches and returns to Python as the call's error, naming the API.
#pragma once
#include <stdexcept>
#include <string>

namespace ascendgen_host {

struct HostError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

[[noreturn]] inline void host_fail(const std::string& message) { throw HostError(message); }

}  // namespace ascendgen_host
