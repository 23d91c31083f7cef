#include "app/eval/csv.h"

#include <cmath>
#include <cstdio>

#include "engine/common/atomic_file.h"
#include "engine/common/error.h"

namespace snapdoc::eval {

std::string csv_field(std::string_view s) {
    if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

std::string csv_number(double v, int decimals) {
    if (std::isnan(v)) return "nan";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

CsvTable::CsvTable(std::vector<std::string> header) : header_(std::move(header)) {}

void CsvTable::add_row(std::vector<std::string> row) {
    if (row.size() != header_.size())
        throw Error("CSV row has " + std::to_string(row.size()) + " fields, the header " + std::to_string(header_.size()));
    rows_.push_back(std::move(row));
}

std::string CsvTable::str() const {
    std::string out;
    auto line = [&](const std::vector<std::string>& r) {
        for (std::size_t i = 0; i < r.size(); ++i) {
            if (i) out += ',';
            out += csv_field(r[i]);
        }
        out += '\n';
    };
    line(header_);
    for (const auto& r : rows_) line(r);
    return out;
}

void CsvTable::write(const std::filesystem::path& path) const {
    AtomicFileWriter f(path);
    f.write(str());
    f.commit();
}

}  // namespace snapdoc::eval
