// Every modal interaction of the main window goes through this seam: file pickers, error boxes and
// the model confirmation. The app uses the real dialogs; GUI tests install a provider that answers
// at once and records what was shown, so no test ever blocks on a modal dialog.
#pragma once

#include <QString>

#include "ui/worker/worker_types.h"

class QWidget;

namespace snapdoc::ui {

class DialogProvider {
public:
    virtual ~DialogProvider() = default;
    virtual void show_error(QWidget* parent, const QString& title, const QString& text);
    // Shown after a model was inspected and before it is loaded; true loads it.
    virtual bool confirm_model(QWidget* parent, const ModelInfo& info);
    virtual QString open_document_file(QWidget* parent, const QString& dir);
    virtual QString open_model_path(QWidget* parent, const QString& dir, bool folder);
    // The path typed and, in `selected_filter`, the filter chosen ("Markdown (*.md)" or
    // "JSON (*.json)"): the filter decides the format (services::export_file_for).
    virtual QString save_export_file(QWidget* parent, const QString& suggested, QString* selected_filter);
    // A yes/no question whose yes is `accept_label` ("Delete", "Remove"); true: accepted.
    virtual bool confirm(QWidget* parent, const QString& title, const QString& text, const QString& accept_label);
    // Asks for a text (one line, or several when `multi_line`); false when cancelled.
    virtual bool edit_text(QWidget* parent, const QString& title, const QString& label, QString& text,
                           bool multi_line);
};

}  // namespace snapdoc::ui
