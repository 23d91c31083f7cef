// Error type used across the engine. Every failure that a user can cause (bad file, bad flag,
// unsupported tensor type, out of memory) is reported as an Error with a message that names the
// offending thing; callers at the edge (CLI, UI worker) turn it into a one-line message.
#pragma once

#include <stdexcept>
#include <string>

namespace snapdoc {

class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// Raised when a model/tokenizer file is malformed, truncated or unsupported.
class FormatError : public Error {
public:
    explicit FormatError(const std::string& message) : Error(message) {}
};

// Raised when a run is stopped through a cancellation flag.
class Cancelled : public Error {
public:
    explicit Cancelled(const std::string& message = "cancelled") : Error(message) {}
};

}  // namespace snapdoc
