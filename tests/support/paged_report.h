// A three-page report for the demo model whose one fact sits on page 3 (citation page tests of
// the CLI, the server and the app): the committed sample report's filler sentences, one per line,
// 14 on each page, the fact the fifth line of the last page.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace snapdoc::testing {

struct PagedReport {
    std::vector<std::vector<std::string>> pages;  // lines of each page (build_pdf's argument)
    std::string fact = "The batch number for the green office is 7003.";
    std::string question = "What is the batch number for the green office?";
    std::string value = "7003";
    int fact_page = 3;
    std::string plain_text() const;  // every line, one per line, no pages
};

// `sample_report`: resources/samples/demo-report.txt (a parameter, so the app's Qt tests can use
// this without the engine tests' support library).
PagedReport paged_report(const std::filesystem::path& sample_report);

}  // namespace snapdoc::testing
