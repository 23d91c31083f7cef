// Citations name their page (issue 41): `snapdoc-cli ask` on a three-page PDF made here, whose one
// fact sits on page 3, cites that fact with "page": 3 in --json and "page 3" on stdout; the same
// text as a .txt file has no pages, and its citations carry no "page" at all. Runs the committed
// demo model (docs/demo_model.md); skips with a message when it is absent.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/fixtures.h"
#include "tests/support/paged_report.h"
#include "tests/support/repo_paths.h"
#include "tests/support/temp_dir.h"
#include "tests/support/zip_builder.h"

namespace snapdoc {
namespace {

using testing::demo_model_path;

std::string quoted(const std::string& s) { return "'" + s + "'"; }

TEST(CliPdfPages, AFactOnPageThreeIsCitedWithPageThree) {
    if (!std::filesystem::exists(demo_model_path()))
        GTEST_SKIP() << "demo model " << demo_model_path().string() << " is absent (docs/demo_model.md); skipping";
    const testing::PagedReport report = testing::paged_report(testing::repo_root() / "resources" / "samples" / "demo-report.txt");
    ASSERT_EQ(report.pages.size(), 3u);
    ASSERT_EQ(report.pages[2].size(), 9u) << "the sample report has fewer sentences than the test needs";

    testing::TempDir dir("snapdoc-cli-pdf-pages");
    const auto pdf = dir.path() / "report.pdf";
    std::ofstream(pdf, std::ios::binary) << testing::build_pdf(report.pages, "Farm Records");
    const auto txt = dir.path() / "report.txt";
    std::ofstream(txt, std::ios::binary) << report.plain_text();

    for (const auto& doc : {pdf, txt}) {
        const bool paged = doc == pdf;
        const auto json_out = dir.path() / (paged ? "pdf.json" : "txt.json");
        const std::string cmd = "XDG_CACHE_HOME=" + quoted((dir.path() / "cache").string()) + " " +
                                std::string(SNAPDOC_CLI_PATH) + " ask -m " + quoted(demo_model_path().string()) +
                                " --doc " + quoted(doc.string()) +
                                " -q " + quoted(report.question) + " -n 16 --json " +
                                quoted(json_out.string());
        const CommandResult r = run_command(cmd + " 2>/dev/null");
        ASSERT_EQ(r.status, 0) << r.output;
        const nlohmann::json out = nlohmann::json::parse(read_text_file(json_out));
        const auto& answer = out.at("answers").at(0);
        EXPECT_NE(answer.at("answer").get<std::string>().find(report.value), std::string::npos) << answer.dump();
        const auto& citations = answer.at("citations");
        ASSERT_FALSE(citations.empty()) << answer.dump();
        EXPECT_NE(citations[0].at("text").get<std::string>().find(report.value), std::string::npos) << citations.dump();
        if (paged) {
            EXPECT_EQ(citations[0].at("page").get<int>(), report.fact_page) << citations.dump();
            EXPECT_NE(r.output.find("  [1] page 3, tokens "), std::string::npos) << r.output;
        } else {
            for (const auto& c : citations) EXPECT_FALSE(c.contains("page")) << citations.dump();
            EXPECT_NE(r.output.find("  [1] tokens "), std::string::npos) << r.output;
        }
    }
}

}  // namespace
}  // namespace snapdoc
