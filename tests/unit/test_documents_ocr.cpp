// OCR of scanned PDF pages (app/documents: pdf_reader, page_ocr, ocr_cache, ocr_language): PDFs
// whose pages are images of text (tests/support/scanned_pdf.h, a built-in bitmap font) are read by
// Tesseract with English (tesseract-ocr-eng); mixed PDFs OCR only their image pages; the text is
// cached and a second read does not OCR; Stop, a missing language and unreadable scans are each a
// clear error that leaves no cache file behind.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "app/documents/document_reader.h"
#include "app/documents/ocr_language.h"
#include "engine/common/error.h"
#include "tests/support/error_text.h"
#include "tests/support/scanned_pdf.h"
#include "tests/support/temp_dir.h"

namespace snapdoc {
namespace {

namespace fs = std::filesystem;
using documents::extract_document;
using documents::OcrOptions;
using documents::OcrProgress;
using testing::error_text;
using testing::scan_page;
using testing::text_page;

const std::vector<std::string> kPageOne{"Harbour report for the north office.", "The boats were counted in May."};
const std::vector<std::string> kPageTwo{"The batch number for the copper office is 4821.", "The ledger was closed."};

std::size_t files_in(const fs::path& dir) {
    std::error_code ec;
    if (!fs::exists(dir, ec)) return 0;
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::recursive_directory_iterator(dir)) ++n;
    return n;
}

// Tesseract with English data is a build dependency (scripts/install-deps.sh); a machine without
// the data says so rather than failing every test here for one missing package.
#define SKIP_WITHOUT_ENGLISH()                                                                                     \
    do {                                                                                                           \
        const auto langs = documents::installed_ocr_languages();                                                   \
        if (std::find(langs.begin(), langs.end(), "eng") == langs.end())                                          \
            GTEST_SKIP() << "tesseract-ocr-eng is not installed (scripts/install-deps.sh installs it)";           \
    } while (0)

OcrOptions options_in(const testing::TempDir& dir) {
    OcrOptions o;
    o.language = "eng";
    o.cache_dir = dir / "ocr";
    return o;
}

TEST(DocumentsOcr, TwoScannedPagesAreRecognisedWithTheirPageStarts) {
    SKIP_WITHOUT_ENGLISH();
    testing::TempDir dir;
    std::vector<OcrProgress> said;
    OcrOptions o = options_in(dir);
    o.progress = [&](const OcrProgress& p) {
        said.push_back(p);
        return true;
    };
    const auto d = extract_document(testing::build_scanned_pdf({scan_page(kPageOne), scan_page(kPageTwo)}), "pdf",
                                    "scan.pdf", o);
    ASSERT_EQ(d.page_starts.size(), 2u);
    EXPECT_EQ(d.recognised_pages, (std::vector<int>{0, 1}));
    EXPECT_EQ(d.ocr_language, "eng");
    EXPECT_FALSE(d.ocr_from_cache);
    const std::size_t fact = d.text.find("The batch number for the copper office is 4821.");
    ASSERT_NE(fact, std::string::npos) << d.text;
    EXPECT_GE(fact, d.page_starts[1]) << "the fact is on page 2";
    EXPECT_NE(d.text.find("Harbour report for the north"), std::string::npos) << d.text;
    EXPECT_NE(d.text.find("The boats were counted in May."), std::string::npos) << d.text;
    EXPECT_LT(d.text.find("Harbour"), d.page_starts[1]);
    ASSERT_EQ(said.size(), 2u);
    EXPECT_EQ(said[0].page, 1);
    EXPECT_EQ(said[0].count, 2);
    EXPECT_LT(said[0].seconds_left, 0) << "no estimate before a page is done";
    EXPECT_EQ(said[1].page, 2);
    EXPECT_EQ(said[1].index, 2);
    EXPECT_GT(said[1].seconds_left, 0);
}

TEST(DocumentsOcr, MixedPdfRecognisesOnlyThePageWithoutText) {
    SKIP_WITHOUT_ENGLISH();
    testing::TempDir dir;
    std::vector<int> pages_ocrd;
    OcrOptions o = options_in(dir);
    o.progress = [&](const OcrProgress& p) {
        pages_ocrd.push_back(p.page);
        return true;
    };
    const auto d = extract_document(
        testing::build_scanned_pdf({text_page({"Typed page one says 7391."}), scan_page(kPageTwo),
                                    text_page({"Typed page three."})}),
        "pdf", "mixed.pdf", o);
    EXPECT_EQ(pages_ocrd, std::vector<int>{2});
    EXPECT_EQ(d.recognised_pages, std::vector<int>{1});
    ASSERT_EQ(d.page_starts.size(), 3u);
    EXPECT_EQ(d.text.substr(0, 25), "Typed page one says 7391.");
    const std::size_t fact = d.text.find("copper office is 4821");
    ASSERT_NE(fact, std::string::npos) << d.text;
    EXPECT_GE(fact, d.page_starts[1]);
    EXPECT_LT(fact, d.page_starts[2]);
    EXPECT_EQ(d.text.substr(d.page_starts[2]), "Typed page three.\n");
}

TEST(DocumentsOcr, SecondReadComesFromTheCacheWithoutOcr) {
    SKIP_WITHOUT_ENGLISH();
    testing::TempDir dir;
    const std::string pdf = testing::build_scanned_pdf({scan_page(kPageOne), scan_page(kPageTwo)});
    int ocr_pages = 0;
    OcrOptions o = options_in(dir);
    o.progress = [&](const OcrProgress&) {
        ++ocr_pages;
        return true;
    };
    const auto first = extract_document(pdf, "pdf", "scan.pdf", o);
    EXPECT_EQ(ocr_pages, 2);
    EXPECT_EQ(files_in(dir / "ocr"), 1u) << "one cache file, no temporary left";
    const auto second = extract_document(pdf, "pdf", "scan.pdf", o);
    EXPECT_EQ(ocr_pages, 2) << "the second read must not OCR";
    EXPECT_TRUE(second.ocr_from_cache);
    EXPECT_EQ(second.text, first.text);
    EXPECT_EQ(second.page_starts, first.page_starts);
    EXPECT_EQ(second.recognised_pages, first.recognised_pages);

    // Another language is another cache entry; a cache file that does not parse is ignored and replaced.
    for (const auto& e : fs::directory_iterator(dir / "ocr")) std::ofstream(e.path(), std::ios::trunc) << "{not json";
    const auto third = extract_document(pdf, "pdf", "scan.pdf", o);
    EXPECT_FALSE(third.ocr_from_cache);
    EXPECT_EQ(ocr_pages, 4);
    EXPECT_EQ(third.text, first.text);

    // use_cache off: neither read nor written.
    testing::TempDir other;
    OcrOptions no_cache = options_in(other);
    no_cache.use_cache = false;
    extract_document(pdf, "pdf", "scan.pdf", no_cache);
    EXPECT_EQ(files_in(other / "ocr"), 0u);
}

TEST(DocumentsOcr, StopDuringOcrIsACancellationThatKeepsNothing) {
    SKIP_WITHOUT_ENGLISH();
    testing::TempDir dir;
    OcrOptions o = options_in(dir);
    o.progress = [](const OcrProgress& p) { return p.index < 2; };  // Stop before the second page
    const std::string pdf = testing::build_scanned_pdf({scan_page(kPageOne), scan_page(kPageTwo)});
    try {
        extract_document(pdf, "pdf", "scan.pdf", o);
        FAIL() << "no Cancelled";
    } catch (const Cancelled& e) {
        EXPECT_NE(std::string(e.what()).find("OCR of scan.pdf stopped"), std::string::npos) << e.what();
    }
    EXPECT_EQ(files_in(dir / "ocr"), 0u);

    std::atomic<bool> cancel{true};
    OcrOptions flagged = options_in(dir);
    flagged.cancel = &cancel;
    EXPECT_THROW(extract_document(pdf, "pdf", "scan.pdf", flagged), Cancelled);
    EXPECT_EQ(files_in(dir / "ocr"), 0u);
}

TEST(DocumentsOcr, MissingLanguageNamesThePackage) {
    SKIP_WITHOUT_ENGLISH();
    testing::TempDir dir;
    OcrOptions o = options_in(dir);
    o.language = "zzz";
    const std::string pdf = testing::build_scanned_pdf({scan_page(kPageOne)});
    EXPECT_NE(error_text([&] { extract_document(pdf, "pdf", "scan.pdf", o); }).find("install the package tesseract-ocr-zzz"),
              std::string::npos);
    o.language = "eng+chi_sim";
    const std::string both = error_text([&] { extract_document(pdf, "pdf", "scan.pdf", o); });
    if (!fs::exists(documents::tessdata_dir() / "chi_sim.traineddata"))
        EXPECT_NE(both.find("tesseract-ocr-chi-sim"), std::string::npos) << both;
    o.language = "../eng";
    EXPECT_NE(error_text([&] { extract_document(pdf, "pdf", "scan.pdf", o); }).find("not a Tesseract language code"),
              std::string::npos);
    EXPECT_EQ(files_in(dir / "ocr"), 0u);
    // A PDF with a text layer needs no OCR, so no language is checked.
    EXPECT_NO_THROW(extract_document(testing::build_scanned_pdf({text_page({"Typed."})}), "pdf", "typed.pdf", o));
}

TEST(DocumentsOcr, UnreadableScansAreClearErrorsAndLeaveNothing) {
    SKIP_WITHOUT_ENGLISH();
    testing::TempDir dir;
    const OcrOptions o = options_in(dir);
    using Kind = testing::TestPdfPage::Kind;
    const std::string blank = testing::build_scanned_pdf({{Kind::BlankScan, {}}, {Kind::BlankScan, {}}});
    const std::string message = error_text([&] { extract_document(blank, "pdf", "blank.pdf", o); });
    EXPECT_NE(message.find("blank.pdf has no text layer (2 pages"), std::string::npos) << message;
    EXPECT_NE(message.find("OCR (eng) recognised no text"), std::string::npos) << message;
    // Image data cut short: Poppler renders what there is (white), nothing is recognised.
    const std::string damaged = testing::build_scanned_pdf({{Kind::DamagedScan, {}}});
    EXPECT_NE(error_text([&] { extract_document(damaged, "pdf", "damaged.pdf", o); }).find("recognised no text"),
              std::string::npos);
    EXPECT_EQ(files_in(dir / "ocr"), 0u);
    // OCR off: the old refusal, saying so.
    OcrOptions off = o;
    off.enabled = false;
    EXPECT_NE(error_text([&] { extract_document(blank, "pdf", "blank.pdf", off); }).find("OCR is off"),
              std::string::npos);
}

TEST(DocumentsOcr, LanguageFollowsTheLocaleWhenInstalledElseEnglish) {
    EXPECT_EQ(documents::ocr_language_for_locale("de_DE.UTF-8"), "deu");
    EXPECT_EQ(documents::ocr_language_for_locale("fr"), "fra");
    EXPECT_EQ(documents::ocr_language_for_locale("pt_BR@euro"), "por");
    EXPECT_EQ(documents::ocr_language_for_locale("zh_TW.UTF-8"), "chi_tra");
    EXPECT_EQ(documents::ocr_language_for_locale("zh_CN"), "chi_sim");
    EXPECT_EQ(documents::ocr_language_for_locale("C.UTF-8"), "");
    EXPECT_EQ(documents::ocr_language_for_locale(""), "");
    // An invented locale's language is never installed: the default falls back to English.
    const char* old = std::getenv("LC_ALL");
    const std::string saved = old ? old : "";
    setenv("LC_ALL", "xx_XX.UTF-8", 1);
    EXPECT_EQ(documents::default_ocr_language(), "eng");
    setenv("LC_ALL", "en_GB.UTF-8", 1);
    EXPECT_EQ(documents::default_ocr_language(), "eng");
    if (old)
        setenv("LC_ALL", saved.c_str(), 1);
    else
        unsetenv("LC_ALL");
}

}  // namespace
}  // namespace snapdoc
