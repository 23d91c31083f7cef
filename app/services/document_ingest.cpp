#include "app/services/document_ingest.h"

#include <algorithm>

#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include "app/common/document_text.h"
#include "app/documents/document_reader.h"
#include "app/services/pdf_text.h"
#include "engine/common/error.h"
#include "engine/common/input_file.h"

namespace snapdoc::services {

namespace {

std::string utf8(const QString& s) {
    return s.toStdString();
}

QString markdown_title(const std::string& text) {
    // The first ATX heading ("# Title"), which is how most Markdown documents name themselves.
    static const QRegularExpression heading(QStringLiteral("^#{1,2}\\s+(.+?)\\s*#*\\s*$"),
                                            QRegularExpression::MultilineOption);
    const auto m = heading.match(
        QString::fromUtf8(text.data(), static_cast<qsizetype>(std::min<size_t>(text.size(), 4096))));
    return m.hasMatch() ? m.captured(1) : QString();
}

// UTF-16 offsets (what the document view counts) of byte offsets into UTF-8 `text`.
std::vector<int> utf16_offsets(const std::string& text, const std::vector<std::size_t>& byte_offsets) {
    std::vector<int> out;
    out.reserve(byte_offsets.size());
    for (std::size_t b : byte_offsets)
        out.push_back(static_cast<int>(QString::fromUtf8(text.data(), static_cast<qsizetype>(std::min(b, text.size()))).size()));
    return out;
}

// A PDF with scanned pages: the Qt-free reader (app/documents) OCRs the pages without a text layer
// and keeps the others' text, with the page starts.
std::string read_scanned_pdf(const QString& path, QString& title, IngestedDocument& d,
                             const std::atomic<bool>* cancel, documents::OcrOptions ocr) {
    if (!ocr.cancel) ocr.cancel = cancel;
    documents::ExtractedDocument e = documents::read_document(path.toStdString(), ocr);
    title = QString::fromStdString(e.title);
    d.page_offsets = utf16_offsets(e.text, e.page_starts);
    d.recognised_pages = e.recognised_pages;
    d.ocr_language = QString::fromStdString(e.ocr_language);
    return std::move(e.text);
}

std::string read_pdf(const QString& path, QString& title, IngestedDocument& d, const IngestProgress& progress,
                     const std::atomic<bool>* cancel, const documents::OcrOptions& ocr) {
    std::vector<int>& page_offsets = d.page_offsets;
    const PdfText pdf = extract_pdf_text(path, progress, cancel);
    title = pdf.title;
    const bool has_blank_page = std::any_of(pdf.pages.begin(), pdf.pages.end(),
                                            [](const QString& page) { return page.trimmed().isEmpty(); });
    if (has_blank_page && ocr.enabled) return read_scanned_pdf(path, title, d, cancel, ocr);
    QString all;
    for (QString page : pdf.pages) {
        if (!all.isEmpty()) all += QStringLiteral("\n\n");
        page_offsets.push_back(static_cast<int>(all.size()));
        // Newlines normalized here already, so the page offsets stay right after normalize_newlines.
        all += page.replace(QStringLiteral("\r\n"), QStringLiteral("\n")).replace(QChar('\r'), QChar('\n'));
    }
    if (all.trimmed().isEmpty())
        throw Error("document " + utf8(path) + " has no text layer (" + std::to_string(pdf.pages.size()) +
                    (pdf.pages.size() == 1 ? " page" : " pages") + ", probably scanned images) and OCR is off");
    return utf8(all);
}

// "\r\n" and lone "\r" become "\n": Qt's text widgets count a CRLF as one character, and the
// engine, the stored text and the document view must agree on every offset.
void normalize_newlines(std::string& s) {
    if (s.find('\r') == std::string::npos) return;
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '\r') {
            out += s[i];
        } else {
            out += '\n';
            if (i + 1 < s.size() && s[i + 1] == '\n') ++i;
        }
    }
    s = std::move(out);
}

}  // namespace

const std::vector<QString>& document_suffixes() {
    static const std::vector<QString> s{"txt", "text", "md", "markdown", "html", "htm", "pdf", "docx", "odt", "epub"};
    return s;
}

bool is_document_file(const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    for (const QString& s : document_suffixes())
        if (s == suffix) return true;
    return false;
}

IngestedDocument ingest_document(const QString& path, const IngestProgress& progress,
                                 const std::atomic<bool>* cancel, documents::OcrOptions ocr) {
    const QFileInfo info(path);
    if (!info.exists()) throw Error("document " + utf8(path) + " does not exist");
    if (info.isDir()) throw Error("document " + utf8(path) + " is a folder, not a file");
    if (!info.isReadable()) throw Error("document " + utf8(path) + " is not readable (permissions)");
    // The guarded open (issue 14): a FIFO or a symlink to /dev/zero is refused here, before QFile or
    // Poppler would block on it or read it without end.
    InputFile::open(utf8(path), "document");
    IngestedDocument d;
    d.path = info.absoluteFilePath();
    d.byte_size = info.size();
    const QString suffix = info.suffix().toLower();
    QString title;
    if (progress) progress(0, 1);
    if (suffix == "pdf") {
        d.format = "pdf";
        d.text = read_pdf(path, title, d, progress, cancel, ocr);
    } else if (suffix == "docx" || suffix == "odt" || suffix == "epub" || suffix == "html" || suffix == "htm") {
        // The Qt-free reader the CLI and the server use too (app/documents: gumbo's HTML5 parser for
        // web pages and EPUB chapters), so all three read the same text.
        documents::ExtractedDocument e = documents::read_document(path.toStdString());
        d.format = QString::fromStdString(e.format);
        d.text = std::move(e.text);
        title = QString::fromStdString(e.title);
    } else {
        // Anything else is read as UTF-8 text, which refuses binary files with a clear message.
        d.format = (suffix == "md" || suffix == "markdown") ? "md" : "txt";
        d.text = read_document_text(path.toStdString());
        if (d.format == "md") title = markdown_title(d.text);
    }
    if (cancel && cancel->load()) throw Cancelled();
    normalize_newlines(d.text);
    d.title = title.isEmpty() ? info.completeBaseName() : title;
    d.content_hash =
        QCryptographicHash::hash(QByteArrayView(d.text.data(), static_cast<qsizetype>(d.text.size())),
                                 QCryptographicHash::Sha256)
            .toHex()
            .toStdString();
    if (progress) progress(1, 1);
    return d;
}

}  // namespace snapdoc::services
