// error_text(f): the message of the snapdoc::Error that f throws, or "" when it throws none; for
// tests that check a message by substring where the exception class does not matter.
#pragma once

#include <functional>
#include <string>

#include "engine/common/error.h"

namespace snapdoc::testing {

inline std::string error_text(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

}  // namespace snapdoc::testing
