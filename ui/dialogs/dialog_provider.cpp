#include "ui/dialogs/dialog_provider.h"

#include <QFileDialog>
#include <QInputDialog>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>

#include "ui/worker/model_description.h"

namespace snapdoc::ui {

void DialogProvider::show_error(QWidget* parent, const QString& title, const QString& text) {
    QMessageBox::warning(parent, title, text);
}

bool DialogProvider::confirm_model(QWidget* parent, const ModelInfo& info) {
    QMessageBox box(parent);
    box.setWindowTitle(QObject::tr("Load model?"));
    box.setIcon(info.tokenizer_error.isEmpty() ? QMessageBox::Question : QMessageBox::Warning);
    box.setText(QObject::tr("<b>%1</b><br>%2").arg(info.name.toHtmlEscaped(), info.path.toHtmlEscaped()));
    box.setInformativeText(model_info_text(info));
    QPushButton* load = box.addButton(QObject::tr("Load"), QMessageBox::AcceptRole);
    box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(load);
    box.exec();
    return box.clickedButton() == load;
}

QString DialogProvider::open_document_file(QWidget* parent, const QString& dir) {
    return QFileDialog::getOpenFileName(
        parent, QObject::tr("Open document"), dir,
        QObject::tr("Documents (*.txt *.text *.md *.markdown *.html *.htm *.pdf *.docx *.odt *.epub);;"
                    "All files (*)"));
}

QString DialogProvider::open_model_path(QWidget* parent, const QString& dir, bool folder) {
    if (folder)
        return QFileDialog::getExistingDirectory(parent, QObject::tr("Open Hugging Face model folder"), dir);
    return QFileDialog::getOpenFileName(parent, QObject::tr("Open model"), dir,
                                        QObject::tr("GGUF models (*.gguf);;All files (*)"));
}

QString DialogProvider::save_export_file(QWidget* parent, const QString& suggested, QString* selected_filter) {
    const QString markdown = QObject::tr("Markdown (*.md)"), json = QObject::tr("JSON (*.json)");
    QString filter = suggested.endsWith(QLatin1String(".json")) ? json : markdown;
    const QString path = QFileDialog::getSaveFileName(parent, QObject::tr("Export conversation"), suggested,
                                                      markdown + ";;" + json, &filter);
    if (selected_filter) *selected_filter = filter;
    return path;
}

bool DialogProvider::confirm(QWidget* parent, const QString& title, const QString& text,
                             const QString& accept_label) {
    QMessageBox box(parent);
    box.setWindowTitle(title);
    box.setIcon(QMessageBox::Question);
    box.setText(text);
    QPushButton* yes = box.addButton(accept_label, QMessageBox::DestructiveRole);
    QPushButton* no = box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(no);
    box.exec();
    return box.clickedButton() == yes;
}

bool DialogProvider::edit_text(QWidget* parent, const QString& title, const QString& label, QString& text,
                               bool multi_line) {
    bool ok = false;
    const QString result = multi_line ? QInputDialog::getMultiLineText(parent, title, label, text, &ok)
                                      : QInputDialog::getText(parent, title, label, QLineEdit::Normal, text, &ok);
    if (ok) text = result;
    return ok;
}

}  // namespace snapdoc::ui
