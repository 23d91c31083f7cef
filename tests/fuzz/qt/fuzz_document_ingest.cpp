// libFuzzer target: arbitrary bytes as a document the app imports (.txt, .md, .html through
// QTextDocument, .pdf through Poppler — the first input byte picks the suffix). ingest_document
// must return text that is valid UTF-8 without NUL bytes (what the engine's tokenizers are given)
// and page offsets inside it, or throw snapdoc::Error; no other exception, no crash, no hang.
// Built only with the app's services (Qt found), see tests/CMakeLists.txt.
#include <QGuiApplication>
#include <QString>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

#include "app/common/document_text.h"
#include "app/services/document_ingest.h"
#include "engine/common/error.h"

namespace {

std::string scratch_path(const char* suffix) {
    // One file per process in a RAM-backed folder when there is one: the input is rewritten per run.
    const char* dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    return std::string(dir) + "/snapdoc-fuzz-ingest-" + std::to_string(getpid()) + "." + suffix;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
    // QTextDocument needs a QGuiApplication (fonts); the offscreen platform needs no display.
    setenv("QT_QPA_PLATFORM", "offscreen", 1);
    static QGuiApplication app(*argc, *argv);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    static const char* const kSuffixes[] = {"txt", "md", "html", "pdf"};
    const char* suffix = kSuffixes[data[0] % 4];
    const std::string path = scratch_path(suffix);
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1));
    }
    snapdoc::services::IngestedDocument doc;
    bool imported = false;
    try {
        doc = snapdoc::services::ingest_document(QString::fromStdString(path));
        imported = true;
    } catch (const snapdoc::Error&) {
    }
    std::remove(path.c_str());
    if (!imported) return 0;
    try {
        snapdoc::check_document_text(doc.text, "fuzzed document");
    } catch (const snapdoc::Error&) {
        std::abort();  // an imported text the engine would refuse (empty, NUL, invalid UTF-8): a finding
    }
    const qsizetype utf16_length = QString::fromStdString(doc.text).size();
    for (int offset : doc.page_offsets)
        if (offset < 0 || offset > utf16_length) std::abort();
    return 0;
}
