// CSV output for evaluation results (RFC 4180 quoting; numbers written with fixed precision).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace snapdoc::eval {

// A field quoted when it holds a comma, quote, CR or LF (quotes doubled).
std::string csv_field(std::string_view s);
std::string csv_number(double v, int decimals = 4);  // "nan" for NaN

class CsvTable {
public:
    explicit CsvTable(std::vector<std::string> header);
    // Throws Error if the row's width differs from the header's.
    void add_row(std::vector<std::string> row);
    std::string str() const;  // header + rows, "\n"-terminated lines
    void write(const std::filesystem::path& path) const;  // atomic replace
    std::size_t rows() const { return rows_.size(); }

private:
    std::vector<std::string> header_;
    std::vector<std::vector<std::string>> rows_;
};

}  // namespace snapdoc::eval
