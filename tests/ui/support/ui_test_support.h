// Shared by the Qt Test suites: fixture paths (skip cleanly when ../shared/fixtures is absent), a
// dialog provider that records instead of blocking, and a wait-for-condition helper.
#pragma once

#include <QString>
#include <QStringList>
#include <QDialog>
#include <QWidget>
#include <functional>

#include "ui/dialogs/dialog_provider.h"

namespace snapdoc::test {

QString fixtures_dir();
// A file of this repository (e.g. "resources/models/snapdoc-demo.gguf"), by absolute path.
QString source_file(const QString& relative);
// The stories260K Hugging Face folder (its GGUF's tokenizer is not usable yet), or "" if absent.
QString tiny_model_path();

// Answers every modal question at once and records what would have been shown.
class RecordingDialogs : public ui::DialogProvider {
public:
    QStringList errors;
    int confirmations = 0;
    bool confirm_answer = true;
    QString next_file;
    QString next_filter = "Markdown (*.md)";  // what the export dialog "chose"
    QString last_suggested;                   // where the export dialog would have opened
    QStringList confirmations_asked;          // titles of confirm() questions
    QStringList confirmation_texts;           // and their texts
    bool confirm_answer_generic = true;
    QStringList texts;  // edit_text answers, taken from the front; none left: cancelled

    void show_error(QWidget*, const QString& title, const QString& text) override {
        errors << title + ": " + text;
    }
    bool confirm_model(QWidget*, const ui::ModelInfo&) override {
        ++confirmations;
        return confirm_answer;
    }
    QString open_document_file(QWidget*, const QString&) override { return next_file; }
    QString last_model_dir;                   // where the Open model dialog would have opened
    QString open_model_path(QWidget*, const QString& dir, bool) override {
        last_model_dir = dir;
        return next_file;
    }
    QString save_export_file(QWidget*, const QString& suggested, QString* filter) override {
        last_suggested = suggested;
        if (filter) *filter = next_filter;
        return next_file;
    }
    bool confirm(QWidget*, const QString& title, const QString& text, const QString&) override {
        confirmations_asked << title;
        confirmation_texts << text;
        return confirm_answer_generic;
    }
    bool edit_text(QWidget*, const QString&, const QString&, QString& text, bool) override {
        if (texts.isEmpty()) return false;
        text = texts.takeFirst();
        return true;
    }
};

// The child of `w` with object name `name` and type T; a test that cannot find it stops, naming it.
template <typename T>
T* child(QWidget& w, const char* name) {
    T* c = w.findChild<T*>(name);
    if (!c) qFatal("no child %s", name);
    return c;
}

// Processes events until `done()` or the timeout; returns done().
bool wait_until(const std::function<bool()>& done, int timeout_ms = 60000);

// Opens Settings from `window`'s menu (the real modal dialog) and, inside its event loop, calls
// `edit` on it: true presses OK, false Cancel. Returns whether `edit` ran and chose OK (false when
// there is no Settings action or no dialog came up).
bool edit_settings(QWidget& window, const std::function<bool(QDialog&)>& edit);

// A long made-up text (deterministic) of about `words` words, for documents in tests.
QString sample_text(int words);

}  // namespace snapdoc::test

#define SNAPDOC_REQUIRE_TINY_MODEL()                                                                       \
    do {                                                                                                   \
        if (::snapdoc::test::tiny_model_path().isEmpty())                                                  \
            QSKIP(qPrintable("fixture " + ::snapdoc::test::fixtures_dir() +                                \
                             "/stories260K/hf-f32 is absent (../shared/fixtures not present); skipping")); \
    } while (0)
