#include "app/common/args.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "engine/common/error.h"

namespace snapdoc::cli {

namespace {
std::string key_of(const FlagSpec& s) {
    for (const auto& n : s.names)
        if (n.rfind("--", 0) == 0) return n.substr(2);
    return s.names.front().substr(1);
}
}  // namespace

Args::Args(const std::vector<FlagSpec>& specs, int argc, char** argv, int first) {
    for (int i = first; i < argc; ++i) {
        const std::string arg = argv[i];
        const FlagSpec* spec = nullptr;
        std::string inline_value;
        bool has_inline = false;
        for (const auto& s : specs)
            for (const auto& n : s.names) {
                if (arg == n) spec = &s;
                else if (arg.rfind(n + "=", 0) == 0 && n.rfind("--", 0) == 0) {
                    spec = &s;
                    inline_value = arg.substr(n.size() + 1);
                    has_inline = true;
                }
            }
        if (!spec) throw Error("unknown argument '" + arg + "' (see --help)");
        const std::string key = key_of(*spec);
        if (!spec->repeatable && values_.count(key)) throw Error("flag " + arg + " given twice");
        if (!spec->takes_value) {
            if (has_inline) throw Error("flag " + arg.substr(0, arg.find('=')) + " takes no value");
            values_[key].push_back("1");
            continue;
        }
        if (has_inline) {
            values_[key].push_back(inline_value);
        } else {
            if (i + 1 >= argc) throw Error("flag " + arg + " needs a value");
            values_[key].push_back(argv[++i]);
        }
    }
}

std::string Args::str(const std::string& key, const std::string& fallback) const {
    auto it = values_.find(key);
    return it == values_.end() ? fallback : it->second.back();
}

std::vector<std::string> Args::all(const std::string& key) const {
    auto it = values_.find(key);
    return it == values_.end() ? std::vector<std::string>{} : it->second;
}

std::string Args::required(const std::string& key) const {
    if (!has(key)) throw Error("missing required flag --" + key);
    return str(key);
}

long long Args::integer64(const std::string& key, long long fallback) const {
    if (!has(key)) return fallback;
    const std::string v = str(key);
    char* end = nullptr;
    errno = 0;
    long long x = std::strtoll(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || errno == ERANGE) throw Error("--" + key + ": '" + v + "' is not an integer");
    return x;
}

int Args::integer(const std::string& key, int fallback) const {
    long long x = integer64(key, fallback);
    if (x < -2147483647LL || x > 2147483647LL) throw Error("--" + key + ": value out of range");
    return static_cast<int>(x);
}

float Args::real(const std::string& key, float fallback) const {
    if (!has(key)) return fallback;
    const std::string v = str(key);
    char* end = nullptr;
    float x = std::strtof(v.c_str(), &end);
    if (v.empty() || *end != '\0' || !std::isfinite(x)) throw Error("--" + key + ": '" + v + "' is not a number");
    return x;
}

std::vector<int> parse_int_list(const std::string& text, const std::string& what) {
    std::vector<int> out;
    std::string item;
    auto flush = [&] {
        if (item.empty()) return;
        char* end = nullptr;
        errno = 0;
        long v = std::strtol(item.c_str(), &end, 10);
        if (*end != '\0' || errno == ERANGE || v < -2147483647L || v > 2147483647L)
            throw Error(what + ": '" + item + "' is not an integer");
        out.push_back(static_cast<int>(v));
        item.clear();
    };
    for (char c : text) {
        if (c == ' ' || c == ',' || c == '\t' || c == '\n') flush();
        else item += c;
    }
    flush();
    return out;
}

}  // namespace snapdoc::cli
