// A small command-line parser for snapdoc-cli subcommands: every subcommand declares its flags,
// so an unknown flag, a missing value or a malformed number is a one-line error, not a surprise.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace snapdoc::cli {

struct FlagSpec {
    std::vector<std::string> names;  // e.g. {"-m", "--model"}; the first long name is the key
    bool takes_value = true;
    bool repeatable = false;
};

class Args {
public:
    // Throws Error on unknown flags, missing values, repeated non-repeatable flags, stray arguments.
    Args(const std::vector<FlagSpec>& specs, int argc, char** argv, int first);

    bool has(const std::string& key) const { return values_.count(key) != 0; }
    std::string str(const std::string& key, const std::string& fallback = "") const;
    std::vector<std::string> all(const std::string& key) const;
    std::string required(const std::string& key) const;
    int integer(const std::string& key, int fallback) const;
    long long integer64(const std::string& key, long long fallback) const;
    float real(const std::string& key, float fallback) const;

private:
    std::map<std::string, std::vector<std::string>> values_;
};

// Parses "1 2 3" / "1,2,3" into ids; throws Error naming the bad item.
std::vector<int> parse_int_list(const std::string& text, const std::string& what);

}  // namespace snapdoc::cli
